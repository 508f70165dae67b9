package main

import (
	_ "embed"

	"topoconf/shims/protocol"
)

const upstreamModule = "github.com/koordinator-sh/koordinator"

// vocabulary is fixtures/features/koordinator.yaml's feature names, one a line,
// as build.sh writes them beside this file; hello declares all of them but
// leftOut.
//
//go:embed vocabulary.txt
var vocabulary string

// leftOut is what the pinned release does not implement, as
// docs/operations/koordinator.md records for upstream v1.8: DistributeEvenly
// (declared, behaves as LeastAllocated, no pod-level field), BalancedAllocation
// scoring (rejected when the plugin is built) and the refusal of malformed
// node labels (passed through). Some declared features are accepted without
// effect (the PCIe-level exclusive policy, for one); the expectations file
// says so for each.
var leftOut = []string{
	"koordinator.numa.strategy.distribute-evenly",
	"koordinator.score.node.balanced-allocation",
	"koordinator.score.numa.balanced-allocation",
	"koordinator.validation.labels",
}

// upstreamVersion names a local tree's version (build.sh sets it for
// KOORDINATOR_SRC builds, whose module the build information cannot name).
var upstreamVersion = ""

// upstreamCommit is the commit a local tree was taken at, and what was laid
// over it (build.sh, KOORDINATOR_SHIM_COMMIT), for the hello's source.
var upstreamCommit = ""

func linkedVersion() string {
	if upstreamVersion != "" {
		return upstreamVersion
	}
	return protocol.ModuleVersion(upstreamModule)
}

func helloMessage() map[string]any {
	return protocol.HelloPayload(protocol.Implementation{
		Name:     "koordinator",
		Version:  linkedVersion(),
		Language: "go",
		Homepage: "https://github.com/koordinator-sh/koordinator",
		Source:   upstreamModule + "@" + linkedVersion() + treeCommit() + " pkg/scheduler/frameworkext/topologymanager, pkg/scheduler/plugins/nodenumaresource, pkg/scheduler/plugins/deviceshare",
	}, "koordinator", protocol.MustFeatures(vocabulary, leftOut))
}

func treeCommit() string {
	if upstreamCommit == "" {
		return ""
	}
	return " (tree " + upstreamCommit + ")"
}
