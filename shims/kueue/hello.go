package main

import (
	_ "embed"
	"encoding/json"

	"topoconf/shims/protocol"
)

const upstreamModule = "sigs.k8s.io/kueue"

// vocabulary is fixtures/features/kueue.yaml's feature names, one a line,
// as build.sh writes them beside this file; hello declares all of them but
// leftOut.
//
//go:embed vocabulary.txt
var vocabulary string

// leftOut is what the pinned release does not implement: kueue.version-defaults
// (one release carries its own gate defaults, not those of 0.9 to 0.20) and
// kueue.tas.provisioning (the provision operation is not driven, README.md).
// Declared gates the release lacks are declared for what it does without them:
// the fixed-time NotReady failure is always on, the pod-owned skip always off,
// and preferred node affinity never orders; hot_swap and assign answer
// unsupported where a case needs the other value (hotswap.go, affinity.go).
var leftOut = []string{
	"kueue.tas.provisioning",
	"kueue.version-defaults",
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
	}, "kueue", protocol.MustFeatures(vocabulary, leftOut, omittedFeatures))
}

func quietLogs() {}

// The provisioning flow (the scheduler's first and second pass around the
// admission checks, the workload controller for Retry and Rejected) is not
// driven yet; see README.md, Provision.
func runProvision(json.RawMessage) answer {
	return unsupported("the shim does not drive Kueue %s's provisioning flow (scheduler passes around the admission checks, the workload controller for Retry and Rejected) yet", linkedVersion())
}
