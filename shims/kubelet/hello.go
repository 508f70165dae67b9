package main

import (
	_ "embed"

	"topoconf/shims/protocol"
)

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

// vocabulary is fixtures/features/kubelet.yaml's feature names, one a line,
// as build.sh writes them beside this file. Hello declares all of them but
// those left out below and in the build-tag files (hintScoreLeftOut,
// branchOptionsLeftOut, podLevelLeftOut), so a feature added to the corpus is
// declared unless a build says it lacks it.
//
//go:embed vocabulary.txt
var vocabulary string

// leftOut are the entries no build of the shim implements: the preferred-first
// merge and the two metrics KEP-6007 adds are in no release, and the branch
// rebuilds carry neither (docs/findings/kubelet-kep6007-branches.md).
var leftOut = []string{
	"kubelet.merge-preferred",
	"kubelet.metrics.numa-score-selection",
	"kubelet.metrics.numa-container-count",
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
	}, "kubelet", protocol.MustFeatures(vocabulary, leftOut, hintScoreLeftOut, branchOptionsLeftOut, podLevelLeftOut))
}
