package main

import (
	apiext "github.com/koordinator-sh/koordinator/apis/extension"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/topologymanager"
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
