//go:build kep6007

package main

import "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"

// A KEP-6007 branch (kubernetes/kubernetes PRs 141796 and 142226) adds
// TopologyHint.Score (int64, 0 = unscored) and the numa-allocation-strategy
// and numa-score-weights options, which reach NewPolicyOptions and
// NewManager as ordinary option strings. This file needs that API and is
// built only with -tags kep6007 against such a checkout (KUBERNETES_SRC).
var kep6007Features = []string{
	"kubelet.hint-score",
	"kubelet.option.numa-allocation-strategy",
	"kubelet.option.numa-score-weights",
}

func setHintScore(h *topologymanager.TopologyHint, score int64) { h.Score = score }

func hintScore(h topologymanager.TopologyHint) int64 { return h.Score }
