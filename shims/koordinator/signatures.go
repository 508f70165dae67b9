package main

import (
	corev1 "k8s.io/api/core/v1"
	fwktype "k8s.io/kube-scheduler/framework"

	apiext "github.com/koordinator-sh/koordinator/apis/extension"
	schedulingv1alpha1 "github.com/koordinator-sh/koordinator/apis/scheduling/v1alpha1"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config"
	v1 "github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config/v1"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/topologymanager"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/plugins/deviceshare"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/plugins/nodenumaresource"
	"github.com/koordinator-sh/koordinator/pkg/util/bitmask"
	"github.com/koordinator-sh/koordinator/pkg/util/cpuset"
)

// The upstream entry points the shim drives, with the signatures it was
// written against; a release that changes one fails to build here.
var (
	_ func() topologymanager.Policy                                                                                                                                                           = topologymanager.NewNonePolicy
	_ func([]int) topologymanager.Policy                                                                                                                                                      = topologymanager.NewBestEffortPolicy
	_ func([]int) topologymanager.Policy                                                                                                                                                      = topologymanager.NewRestrictedPolicy
	_ func([]int) topologymanager.Policy                                                                                                                                                      = topologymanager.NewSingleNumaNodePolicy
	_ func(...int) (bitmask.BitMask, error)                                                                                                                                                   = bitmask.NewBitMask
	_ func(topologymanager.Policy, []map[string][]topologymanager.NUMATopologyHint, apiext.NumaTopologyExclusive, []apiext.NumaNodeStatus) (topologymanager.NUMATopologyHint, bool, []string) = topologymanager.Policy.Merge
)

var (
	_ func() *nodenumaresource.CPUTopologyBuilder                                                         = nodenumaresource.NewCPUTopologyBuilder
	_ func(*nodenumaresource.CPUTopologyBuilder, int, int, int, int) *nodenumaresource.CPUTopologyBuilder = (*nodenumaresource.CPUTopologyBuilder).AddCPUInfo
	_ func(string) (cpuset.CPUSet, error)                                                                 = cpuset.Parse
	_                                                                                                     = nodenumaresource.ConformanceTakeCPUs // the overlay: NewNodeAllocation, addCPUs, getAvailableCPUs, filterCPUsByRequiredCPUBindPolicy, takePreferredCPUs, satisfiedRequiredCPUBindPolicy
)

// The plugin cycle (pipeline.go, ops.go, objects.go) and the overlay files.
var (
	_ func(*config.NodeNUMAResourceArgs, frameworkext.ExtendedHandle) (*nodenumaresource.Plugin, error) = nodenumaresource.ConformanceNew
	_ func(*config.DeviceShareArgs, frameworkext.ExtendedHandle) (*deviceshare.Plugin, error)           = deviceshare.ConformanceNew
	_ func(topologymanager.NUMATopologyHintProviderFactory) topologymanager.Interface                   = topologymanager.New
	_ func() *frameworkext.FakeNominator                                                                = frameworkext.NewFakeReservationNominator
	_ func(*v1.NodeNUMAResourceArgs)                                                                    = v1.SetDefaults_NodeNUMAResourceArgs
	_ func(*v1.DeviceShareArgs)                                                                         = v1.SetDefaults_DeviceShareArgs
	_ func(*corev1.Pod) bool                                                                            = nodenumaresource.AllowUseCPUSet
	_ func(*corev1.Pod) (map[schedulingv1alpha1.DeviceType]corev1.ResourceList, error)                  = deviceshare.GetPodDeviceRequests
	_ func(fwktype.CycleState) *topologymanager.Store                                                   = topologymanager.GetStore
)
