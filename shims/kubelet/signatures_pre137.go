//go:build kubelet_pre137

package main

import (
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"topoconf/shims/kubelet/cadvisorapi"
)

// The entry points a pre-v1.37 build calls directly (the ones whose form
// differs between releases are called through api_v1_3x.go, which fails to
// compile on its own if a release changes them).
var (
	_ func(string) error                                                                         = topologymanager.CheckPolicyOptionAvailable
	_ func([]cadvisorapi.Node, topologymanager.PolicyOptions) (*topologymanager.NUMAInfo, error) = topologymanager.NewNUMAInfo
	_ func(*topologymanager.NUMAInfo, topologymanager.PolicyOptions) topologymanager.Policy      = topologymanager.NewBestEffortPolicy
	_ func(*topologymanager.NUMAInfo, topologymanager.PolicyOptions) topologymanager.Policy      = topologymanager.NewRestrictedPolicy
	_ func(*topologymanager.NUMAInfo, topologymanager.PolicyOptions) topologymanager.Policy      = topologymanager.NewSingleNumaNodePolicy
	_ func() topologymanager.Policy                                                              = topologymanager.NewNonePolicy
)
