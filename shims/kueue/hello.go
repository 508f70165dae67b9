package main

import (
	"encoding/json"

	"topoconf/shims/protocol"
)

const upstreamModule = "sigs.k8s.io/kueue"

// releaseFeatures are the vocabulary entries (fixtures/features/kueue.yaml)
// that the pinned release implements. Left out: kueue.version-defaults (one
// release carries its own gate defaults, not those of 0.9 to 0.20) and the
// gates the release does not have (TASReplaceNodeDueToNotReadyOverFixedTime
// and SkipReassignmentForPodOwnedWorkloads appear after v0.17).
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

// Hot swap is decided by the node controller (pkg/controller/tas
// node_controller.go), a reconciler that reads and patches Workloads, Pods
// and Nodes through a controller-runtime client, and by the scheduler's
// second pass; neither is a function of the case's state that this shim can
// call without an API server.
func runHotSwap(json.RawMessage) answer {
	return unsupported("hot swap runs in the TAS node controller (pkg/controller/tas/node_controller.go) and the scheduler's second pass, both driven through an API client; this shim does not drive them")
}

func runProvision(json.RawMessage) answer {
	return unsupported("the provisioning flow runs across the scheduler, the workload controller and the ProvisioningRequest admission check controller against an API server; this shim does not drive them")
}
