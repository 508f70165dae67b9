//go:build !kep6007_pr142226

package main

import (
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
)

// Without PR 142226 there is no allocation strategy and no score weight:
// PolicyOptions has no field for them, so start reports the values the
// contract gives a kubelet without them, and no score ever decides a merge.
var branchOptionsLeftOut = []string{
	"kubelet.option.numa-allocation-strategy",
	"kubelet.option.numa-score-weights",
}

func kepOptions(topologymanager.PolicyOptions) (string, map[string]int, bool) {
	return "none", map[string]int{}, false
}

func scoreDecided(string, *topologymanager.NUMAInfo, topologymanager.PolicyOptions, klog.Logger,
	[]map[string][]topologymanager.TopologyHint, topologymanager.TopologyHint) (bool, error) {
	return false, nil
}
