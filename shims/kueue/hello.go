package main

import (
	"encoding/json"

	"topoconf/shims/protocol"
)

const upstreamModule = "sigs.k8s.io/kueue"

// releaseFeatures are the vocabulary entries (fixtures/features/kueue.yaml)
// that the pinned release implements. Left out: kueue.version-defaults (one
// release carries its own gate defaults, not those of 0.9 to 0.20).
var releaseFeatures = []string{
	"kueue.tas.topology",
	"kueue.tas.capacity",
	"kueue.tas.taints",
	"kueue.tas.required",
	"kueue.tas.preferred",
	"kueue.tas.unconstrained",
	"kueue.tas.implied",
	"kueue.tas.domain-order",
	"kueue.tas.podset-group",
	"kueue.tas.slices",
	"kueue.tas.multi-layer-slices",
	"kueue.tas.balanced-placement",
	"kueue.tas.assignment",
	"kueue.tas.not-fit",
	"kueue.tas.validation",
	"kueue.tas.hot-swap",
	"kueue.tas.provisioning",
	"kueue.gate.topology-aware-scheduling",
	"kueue.gate.tas-profile-mixed",
	"kueue.gate.tas-balanced-placement",
	"kueue.gate.tas-multi-layer-topology",
	"kueue.gate.tas-failed-node-replacement",
	"kueue.gate.tas-failed-node-replacement-fail-fast",
	"kueue.gate.tas-replace-node-on-pod-termination",
	"kueue.gate.tas-replace-node-on-node-taints",
	// Gates the release does not have, declared for what it does without
	// them: the fixed-time NotReady failure is always on, the pod-owned skip
	// always off; hot_swap answers unsupported where a case needs the other
	// value (hotswap.go).
	"kueue.gate.tas-replace-node-due-to-not-ready-over-fixed-time",
	"kueue.gate.skip-reassignment-for-pod-owned-workloads",
}

func linkedVersion() string { return protocol.ModuleVersion(upstreamModule) }

func helloMessage() map[string]any {
	return protocol.HelloPayload(protocol.Implementation{
		Name:     "kueue",
		Version:  linkedVersion(),
		Language: "go",
		Homepage: "https://github.com/kubernetes-sigs/kueue",
		Source:   upstreamModule + "@" + linkedVersion() + " pkg/cache/scheduler, pkg/controller/jobframework, pkg/features",
	}, "kueue", releaseFeatures)
}

func quietLogs() {}

func runProvision(json.RawMessage) answer {
	return unsupported("the provisioning flow runs across the scheduler, the workload controller and the ProvisioningRequest admission check controller against an API server; this shim does not drive them")
}
