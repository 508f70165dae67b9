//go:build kubelet_v1_34

package main

import (
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"topoconf/shims/kubelet/cadvisorapi"
)

// v1.34: none of the Topology Manager's entry points takes a logger yet.

func newTopologyManager(_ klog.Logger, nodes []cadvisorapi.Node, policy, scope string, options map[string]string) (topologymanager.Manager, error) {
	return topologymanager.NewManager(nodes, policy, scope, options)
}

func newPolicyOptions(_ klog.Logger, options map[string]string) (topologymanager.PolicyOptions, error) {
	return topologymanager.NewPolicyOptions(options)
}

func mergeHints(p topologymanager.Policy, _ klog.Logger, providers []map[string][]topologymanager.TopologyHint) (topologymanager.TopologyHint, bool) {
	return p.Merge(providers)
}
