//go:build kubelet_v1_35 || kubelet_v1_36

package main

import (
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"topoconf/shims/kubelet/cadvisorapi"
)

// v1.35 and v1.36: NewManager takes no logger; option parsing and the merge do.

func newTopologyManager(_ klog.Logger, nodes []cadvisorapi.Node, policy, scope string, options map[string]string) (topologymanager.Manager, error) {
	return topologymanager.NewManager(nodes, policy, scope, options)
}

func newPolicyOptions(logger klog.Logger, options map[string]string) (topologymanager.PolicyOptions, error) {
	return topologymanager.NewPolicyOptions(logger, options)
}

func mergeHints(p topologymanager.Policy, logger klog.Logger, providers []map[string][]topologymanager.TopologyHint) (topologymanager.TopologyHint, bool) {
	return p.Merge(logger, providers)
}
