package main

import "topoconf/shims/protocol"

const upstreamModule = "github.com/koordinator-sh/koordinator"

// releaseFeatures are the vocabulary entries (fixtures/features/koordinator.yaml)
// the pinned release implements. Left out, as docs/operations/koordinator.md
// records for upstream v1.8: DistributeEvenly (declared, behaves as
// LeastAllocated, no pod-level field), BalancedAllocation scoring (rejected
// when the plugin is built) and the refusal of malformed node labels (passed
// through).
var releaseFeatures = []string{
	"koordinator.merge",
	"koordinator.policy.none",
	"koordinator.policy.best-effort",
	"koordinator.policy.restricted",
	"koordinator.policy.single-numa-node",
	"koordinator.policy.resolution",
	"koordinator.exclusive.single-numa-node",
	"koordinator.numa.strategy.most-allocated",
	"koordinator.numa.strategy.least-allocated",
	"koordinator.numa.strategy.precedence",
	"koordinator.numa.resources",
	"koordinator.cpubind.default",
	"koordinator.cpubind.full-pcpus",
	"koordinator.cpubind.spread-by-pcpus",
	"koordinator.cpubind.constrained-burst",
	"koordinator.cpubind.required",
	"koordinator.cpubind.node-policy",
	"koordinator.cpubind.eligibility",
	"koordinator.cpuexclusive.pcpu-level",
	"koordinator.cpuexclusive.numa-node-level",
	"koordinator.cpuset.selection",
	"koordinator.score.node.most-allocated",
	"koordinator.score.node.least-allocated",
	"koordinator.score.numa.most-allocated",
	"koordinator.score.numa.least-allocated",
	"koordinator.score.weights",
	"koordinator.deviceshare.topology",
	"koordinator.deviceshare.hints",
	"koordinator.deviceshare.selector",
	"koordinator.deviceshare.vf-selector",
	"koordinator.deviceshare.allocate-strategy.apply-for-all",
	"koordinator.deviceshare.allocate-strategy.requests-as-count",
	"koordinator.deviceshare.scope.device",
	"koordinator.deviceshare.scope.pcie",
	"koordinator.deviceshare.scope.numa-node",
	"koordinator.deviceshare.scope.node",
	"koordinator.deviceshare.exclusive.device-level",
	// Accepted and without effect: the expectations file declares the difference.
	"koordinator.deviceshare.exclusive.pcie-level",
	"koordinator.deviceshare.joint-allocate",
	"koordinator.deviceshare.gpu-partition",
	"koordinator.deviceshare.gpu-partition.restricted",
	"koordinator.deviceshare.gpu-partition.best-effort",
	"koordinator.deviceshare.gpu-partition.ring-bus-bandwidth",
	"koordinator.deviceshare.gpu-partition.node-policy",
	"koordinator.deviceshare.disable-numa-alignment",
	"koordinator.deviceshare.score.most-allocated",
	"koordinator.deviceshare.score.least-allocated",
	"koordinator.validation.annotations",
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
	}, "koordinator", releaseFeatures)
}

func treeCommit() string {
	if upstreamCommit == "" {
		return ""
	}
	return " (tree " + upstreamCommit + ")"
}
