//go:build !kubelet_pre137

package main

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/utils/cpuset"
	"topoconf/shims/kubelet/cadvisorapi"
)

// The upstream entry points this shim drives, with the signatures of the
// pinned release. A release that changes any of them stops the build here,
// with the name of the function, instead of somewhere in the shim's logic.
var (
	_ func(klog.Logger, []cadvisorapi.Node, string, string, map[string]string) (topologymanager.Manager, error) = topologymanager.NewManager
	_ func(klog.Logger, map[string]string) (topologymanager.PolicyOptions, error)                               = topologymanager.NewPolicyOptions
	_ func(string) error                                                                                        = topologymanager.CheckPolicyOptionAvailable
	_ func([]cadvisorapi.Node, topologymanager.PolicyOptions) (*topologymanager.NUMAInfo, error)                = topologymanager.NewNUMAInfo
	_ func(*topologymanager.NUMAInfo, topologymanager.PolicyOptions) topologymanager.Policy                     = topologymanager.NewBestEffortPolicy
	_ func(*topologymanager.NUMAInfo, topologymanager.PolicyOptions) topologymanager.Policy                     = topologymanager.NewRestrictedPolicy
	_ func(*topologymanager.NUMAInfo, topologymanager.PolicyOptions) topologymanager.Policy                     = topologymanager.NewSingleNumaNodePolicy
	_ func() topologymanager.Policy                                                                             = topologymanager.NewNonePolicy

	_ func(topologymanager.Policy, klog.Logger, []map[string][]topologymanager.TopologyHint) (topologymanager.TopologyHint, bool) = topologymanager.Policy.Merge
	_ func(topologymanager.Manager, context.Context, *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult                      = topologymanager.Manager.Admit

	_ func(klog.Logger, string, map[string]string, time.Duration, *cadvisorapi.MachineInfo, cpuset.CPUSet, v1.ResourceList, string, topologymanager.Store) (cpumanager.Manager, error) = cpumanager.NewManager
	_ func(klog.Logger, string, *cadvisorapi.MachineInfo, v1.ResourceList, []kubeletconfig.MemoryReservation, string, topologymanager.Store) (memorymanager.Manager, error)            = memorymanager.NewManager
	_ func(klog.Logger, []cadvisorapi.Node, topologymanager.Store) (*devicemanager.ManagerImpl, error)                                                                                 = devicemanager.NewManagerImpl

	// The shim's own implementations of upstream interfaces.
	_ topologymanager.HintProvider = (*observed)(nil)
	_ topologymanager.Store        = (*affinityStore)(nil)
)
