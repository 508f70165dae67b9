package main

import "topoconf/shims/protocol"

// upstreamVersion is the k8s.io/kubernetes release this binary links. build.sh
// sets it for builds against a local checkout; otherwise it is read from the
// module's build information.
var upstreamVersion = ""

// upstreamBase is the release a local tree is based on (build.sh sets it
// with upstreamVersion); it decides which Kubernetes minor the build answers
// for when the version names a branch rather than a release.
var upstreamBase = ""

// kubernetesMinor, when build.sh is given KUBELET_SHIM_MINOR, is the
// Kubernetes minor a local tree is the development line of: a pull request
// against master built on the last release's source answers as the next
// minor (and leaves older versions' cases unsupported), as a checkout whose
// git describe names that minor would.
var kubernetesMinor = ""

const upstreamModule = "k8s.io/kubernetes"

// releaseFeatures are the vocabulary entries (fixtures/features/kubelet.yaml)
// that the pinned release implements. KEP-6007 (hint scores, allocation
// strategy, score weights, their metrics, the preferred-first merge) is in no
// release; a build with the kep6007 tag adds what that branch provides.
var releaseFeatures = []string{
	"kubelet.merge",
	"kubelet.policy.none",
	"kubelet.policy.best-effort",
	"kubelet.policy.restricted",
	"kubelet.policy.single-numa-node",
	"kubelet.scope.container",
	"kubelet.scope.pod",
	"kubelet.option.prefer-closest-numa-nodes",
	"kubelet.option.max-allowable-numa-nodes",
	"kubelet.option.validation",
	"kubelet.gates.policy-options",
	"kubelet.provider.cpu",
	"kubelet.provider.memory",
	"kubelet.provider.device",
	"kubelet.init-containers",
	"kubelet.metrics.admission",
}

func linkedVersion() string {
	if upstreamVersion != "" {
		return upstreamVersion
	}
	return protocol.ModuleVersion(upstreamModule)
}

func helloMessage() map[string]any {
	return protocol.HelloPayload(protocol.Implementation{
		Name:     "kubelet",
		Version:  linkedVersion(),
		Language: "go",
		Homepage: "https://github.com/kubernetes/kubernetes",
		Source:   upstreamModule + "@" + linkedVersion() + " pkg/kubelet/cm/topologymanager, cpumanager, memorymanager, devicemanager",
	}, "kubelet", append(append([]string{}, releaseFeatures...), kep6007Features...))
}
