//go:build kep6007 && kep6007_pr142226

package main

import (
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
)

// PR 142226 parses numa-allocation-strategy and numa-score-weights into
// PolicyOptions.NUMAAllocationStrategy and PolicyOptions.NUMAScoreWeights;
// its HintMerger uses them only while TopologyManagerPolicyAlphaOptions is on.
var branchOptionsLeftOut []string

func scoringActive(o topologymanager.PolicyOptions) bool {
	return o.NUMAAllocationStrategy != "" && o.NUMAAllocationStrategy != topologymanager.NUMAAllocationStrategyNone &&
		utilfeature.DefaultFeatureGate.Enabled(kubefeatures.TopologyManagerPolicyAlphaOptions)
}

func kepOptions(o topologymanager.PolicyOptions) (string, map[string]int, bool) {
	strategy := o.NUMAAllocationStrategy
	if strategy == "" {
		strategy = topologymanager.NUMAAllocationStrategyNone
	}
	weights := o.NUMAScoreWeights
	if weights == nil {
		weights = map[string]int{}
	}
	return strategy, weights, scoringActive(o)
}

// scoreDecided merges the same hints again with the branch's own code and the
// strategy set to none; the score decided the selection when the masks differ.
func scoreDecided(policy string, numaInfo *topologymanager.NUMAInfo, o topologymanager.PolicyOptions, logger klog.Logger,
	providers []map[string][]topologymanager.TopologyHint, selected topologymanager.TopologyHint) (bool, error) {
	if policy == topologymanager.PolicyNone || !scoringActive(o) {
		return false, nil
	}
	plain := o
	plain.NUMAAllocationStrategy = topologymanager.NUMAAllocationStrategyNone
	p, err := buildPolicy(policy, numaInfo, plain)
	if err != nil {
		return false, err
	}
	without, _ := mergeHints(p, logger, providers)
	return !sameMask(without, selected), nil
}

func sameMask(a, b topologymanager.TopologyHint) bool {
	if a.NUMANodeAffinity == nil || b.NUMANodeAffinity == nil {
		return a.NUMANodeAffinity == nil && b.NUMANodeAffinity == nil
	}
	return a.NUMANodeAffinity.IsEqual(b.NUMANodeAffinity)
}
