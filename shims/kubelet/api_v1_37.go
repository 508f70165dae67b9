//go:build !kubelet_pre137

package main

import (
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"topoconf/shims/kubelet/cadvisorapi"
)

// The Topology Manager entry points start and merge call, in the form v1.37
// exports them. Older releases take fewer loggers (api_v1_35.go,
// api_v1_34.go); these wrappers are the only place the difference shows.

func newTopologyManager(logger klog.Logger, nodes []cadvisorapi.Node, policy, scope string, options map[string]string) (topologymanager.Manager, error) {
	return topologymanager.NewManager(logger, nodes, policy, scope, options)
}

func newPolicyOptions(logger klog.Logger, options map[string]string) (topologymanager.PolicyOptions, error) {
	return topologymanager.NewPolicyOptions(logger, options)
}

func mergeHints(p topologymanager.Policy, logger klog.Logger, providers []map[string][]topologymanager.TopologyHint) (topologymanager.TopologyHint, bool) {
	return p.Merge(logger, providers)
}
