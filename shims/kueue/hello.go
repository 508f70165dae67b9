package main

import (
	"encoding/json"
	"slices"

	"topoconf/shims/protocol"
)

const upstreamModule = "sigs.k8s.io/kueue"

// releaseFeatures are the vocabulary entries (fixtures/features/kueue.yaml)
// that the pinned release implements. Left out: kueue.version-defaults (one
// release carries its own gate defaults, not those of 0.9 to 0.20) and
// kueue.tas.provisioning (the provision operation is not driven, README.md).
var releaseFeatures = []string{
	"kueue.tas.topology",
	"kueue.tas.capacity",
	"kueue.tas.taints",
	"kueue.tas.node-affinity",
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
	"kueue.tas.placement-level-messages",
	"kueue.tas.validation",
	"kueue.tas.hot-swap",
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
	// Without the gate the release never orders by preferred node affinity;
	// assign and hot_swap answer unsupported where a case turns it on for a
	// podset with preferred terms (affinity.go).
	"kueue.gate.tas-respect-node-affinity-preferred",
}

// Set by build-local.sh for a local Kueue tree, whose module version the
// build records only as the requirement it replaced.
var upstreamVersion, upstreamCommit string

func linkedVersion() string {
	if upstreamVersion != "" {
		return upstreamVersion
	}
	return protocol.ModuleVersion(upstreamModule)
}

func linkedSource() string {
	if upstreamCommit != "" {
		return upstreamModule + "@" + upstreamCommit
	}
	return upstreamModule + "@" + linkedVersion()
}

func helloMessage() map[string]any {
	return protocol.HelloPayload(protocol.Implementation{
		Name:     "kueue",
		Version:  linkedVersion(),
		Language: "go",
		Homepage: "https://github.com/kubernetes-sigs/kueue",
		Source:   linkedSource() + " pkg/cache/scheduler, pkg/controller/jobframework, pkg/controller/tas, pkg/scheduler, pkg/features",
	}, "kueue", claimedFeatures())
}

// claimedFeatures are releaseFeatures without those the build does not
// drive (omittedFeatures, per build tag).
func claimedFeatures() []string {
	var out []string
	for _, f := range releaseFeatures {
		if !slices.Contains(omittedFeatures, f) {
			out = append(out, f)
		}
	}
	return out
}

func quietLogs() {}

// The provisioning flow (the scheduler's first and second pass around the
// admission checks, the workload controller for Retry and Rejected) is not
// driven yet; see README.md, Provision.
func runProvision(json.RawMessage) answer {
	return unsupported("the shim does not drive Kueue %s's provisioning flow (scheduler passes around the admission checks, the workload controller for Retry and Rejected) yet", linkedVersion())
}
