// This file is not part of Koordinator. shims/koordinator/build.sh copies it
// into a copy of the pinned release's pkg/scheduler/plugins/nodenumaresource,
// taken from the module cache. It builds the plugin without the informers
// New registers (the shim feeds the objects to the plugin's own event
// handlers instead) and reads back what the package keeps unexported: the
// PreFilter state, the allocation Reserve made and the NUMA node statuses.
// It decides nothing itself.

package nodenumaresource

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	nrtv1alpha1 "github.com/k8stopologyawareschedwg/noderesourcetopology-api/pkg/apis/topology/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	quotav1 "k8s.io/apiserver/pkg/quota/v1"
	fwktype "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/koordinator-sh/koordinator/apis/extension"
	schedulingconfig "github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config/validation"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/topologymanager"
	"github.com/koordinator-sh/koordinator/pkg/util"
	"github.com/koordinator-sh/koordinator/pkg/util/bitmask"
)

// ConformanceNew is NewWithOptions without the NodeResourceTopology and Pod
// informers: the same argument validation, scorers, topology options
// manager and resource manager.
func ConformanceNew(pluginArgs *schedulingconfig.NodeNUMAResourceArgs, handle frameworkext.ExtendedHandle) (*Plugin, error) {
	if err := validation.ValidateNodeNUMAResourceArgs(nil, pluginArgs); err != nil {
		return nil, err
	}
	scorePlugin, exists := resourceStrategyTypeMap[pluginArgs.ScoringStrategy.Type]
	if !exists {
		return nil, fmt.Errorf("scoring strategy %s is not supported", pluginArgs.ScoringStrategy.Type)
	}
	numaScorePlugin, exists := resourceStrategyTypeMap[pluginArgs.NUMAScoringStrategy.Type]
	if !exists {
		return nil, fmt.Errorf("numa scoring strategy %s is not supported", pluginArgs.NUMAScoringStrategy.Type)
	}
	topologyOptionsManager := NewTopologyOptionsManager()
	return &Plugin{
		handle:                 handle,
		pluginArgs:             pluginArgs,
		scorer:                 scorePlugin(pluginArgs),
		numaScorer:             numaScorePlugin(pluginArgs),
		resourceManager:        NewResourceManager(handle, GetDefaultNUMAAllocateStrategy(pluginArgs), topologyOptionsManager),
		topologyOptionsManager: topologyOptionsManager,
	}, nil
}

// ConformanceAddTopology hands a NodeResourceTopology to the plugin's NRT event handler.
func (p *Plugin) ConformanceAddTopology(nrt *nrtv1alpha1.NodeResourceTopology) {
	(&nodeResourceTopologyEventHandler{topologyManager: p.topologyOptionsManager}).OnAdd(nrt, true)
}

// ConformanceAddPod hands a placed pod to the plugin's pod event handler.
func (p *Plugin) ConformanceAddPod(pod *corev1.Pod) {
	(&podEventHandler{resourceManager: p.resourceManager}).OnAdd(pod, true)
}

// ConformanceResolution is what PreFilter and the head of Filter resolve for
// a pod on a node, read from the plugin's own state and helpers.
type ConformanceResolution struct {
	Skip                   bool
	StateRequestCPUBind    bool
	RequiredCPUBindPolicy  schedulingconfig.CPUBindPolicy
	PreferredCPUBindPolicy schedulingconfig.CPUBindPolicy
	CPUExclusivePolicy     schedulingconfig.CPUExclusivePolicy
	PodPolicy              extension.NUMATopologyPolicy
	PodExclusive           extension.NumaTopologyExclusive
	NodePolicy             extension.NUMATopologyPolicy // labels, then the kubelet policy of the NRT
	KubeletPolicy          extension.NUMATopologyPolicy
	Policy                 extension.NUMATopologyPolicy // merged; "" when MergeError
	MergeError             bool
	NodeCPUBindPolicy      extension.NodeCPUBindPolicy
	RequestCPUBind         bool
	RequestCPUBindStatus   *fwktype.Status
	CPUBindPolicy          schedulingconfig.CPUBindPolicy
	CPUBindRequired        bool
	NUMAAllocateStrategy   schedulingconfig.NUMAAllocateStrategy
	CPUsPerCore            int
	ValidCPUTopology       bool
	NumCPUsNeeded          int
	NUMANodes              []int
}

// ConformanceResolve reads the PreFilter state and applies the helpers
// Filter, allocate and allocateCPUSet use to the node.
// A pod PreFilter skipped (it requests nothing) is resolved with what
// PreFilter reads first, its NUMA topology spec.
func (p *Plugin) ConformanceResolve(cycleState fwktype.CycleState, node *corev1.Node, pod *corev1.Pod) *ConformanceResolution {
	state, status := getPreFilterState(cycleState)
	out := &ConformanceResolution{}
	if !status.IsSuccess() || state == nil || state.skip {
		out.Skip = true
		state = &preFilterState{}
		if numaSpec, err := extension.GetNUMATopologySpec(pod.Annotations); err == nil {
			state.podNUMATopologyPolicy = numaSpec.NUMATopologyPolicy
			state.podNUMAExclusive = numaSpec.SingleNUMANodeExclusive
		}
	}
	topologyOptions := p.topologyOptionsManager.GetTopologyOptions(node.Name)
	out.StateRequestCPUBind = state.requestCPUBind
	out.RequiredCPUBindPolicy = state.requiredCPUBindPolicy
	out.PreferredCPUBindPolicy = state.preferredCPUBindPolicy
	out.CPUExclusivePolicy = state.preferredCPUExclusivePolicy
	out.PodPolicy = state.podNUMATopologyPolicy
	out.PodExclusive = state.podNUMAExclusive
	out.NumCPUsNeeded = state.numCPUsNeeded
	out.KubeletPolicy = topologyOptions.NUMATopologyPolicy
	out.NodePolicy = getNUMATopologyPolicy(node.Labels, topologyOptions.NUMATopologyPolicy)
	merged, err := mergeTopologyPolicy(out.NodePolicy, out.PodPolicy)
	out.Policy, out.MergeError = merged, err != nil
	out.NodeCPUBindPolicy = extension.GetNodeCPUBindPolicy(node.Labels, topologyOptions.Policy)
	out.RequestCPUBind, out.RequestCPUBindStatus = requestCPUBind(state, out.NodeCPUBindPolicy)
	out.CPUBindPolicy, out.CPUBindRequired, _ = getCPUBindPolicy(&topologyOptions, node, state.requiredCPUBindPolicy, state.preferredCPUBindPolicy)
	if rm, ok := p.resourceManager.(*resourceManager); ok {
		out.NUMAAllocateStrategy = GetNUMAAllocateStrategy(node, rm.numaAllocateStrategy)
	}
	out.ValidCPUTopology = topologyOptions.CPUTopology.IsValid()
	if out.ValidCPUTopology {
		out.CPUsPerCore = topologyOptions.CPUTopology.CPUsPerCore()
	}
	out.NUMANodes = topologyOptions.getNUMANodes()
	return out
}

// ConformanceDefaultCPUBindPolicy is the plugin argument PreFilter falls back to.
func (p *Plugin) ConformanceDefaultCPUBindPolicy() schedulingconfig.CPUBindPolicy {
	return p.pluginArgs.DefaultCPUBindPolicy
}

// ConformanceAllocation is the allocation Reserve (or Filter) left in the
// cycle state: the CPU set and the NUMA node resources.
func ConformanceAllocation(cycleState fwktype.CycleState) *PodAllocation {
	state, status := getPreFilterState(cycleState)
	if !status.IsSuccess() || state == nil {
		return nil
	}
	return state.allocation
}

// ConformanceNUMANodeStatus is the node allocation's status of each NUMA node,
// as FilterByNUMANode hands it to the topology manager.
func (p *Plugin) ConformanceNUMANodeStatus(nodeName string) []extension.NumaNodeStatus {
	topologyOptions := p.topologyOptionsManager.GetTopologyOptions(nodeName)
	numaNodes := topologyOptions.getNUMANodes()
	return p.resourceManager.GetNodeAllocation(nodeName).GetAllNUMANodeStatus(len(numaNodes))
}

// ConformanceNUMAScores is the NUMA scorer's score of every NUMA mask of the
// node, with the totals and the availability GetTopologyHints hands to
// generateResourceHints (required bind policies trim the available CPUs).
func (p *Plugin) ConformanceNUMAScores(cycleState fwktype.CycleState, node *corev1.Node) (map[string]int64, error) {
	state, status := getPreFilterState(cycleState)
	if !status.IsSuccess() {
		return nil, status.AsError()
	}
	out := map[string]int64{}
	if state.skip {
		return out, nil
	}
	topologyOptions := p.topologyOptionsManager.GetTopologyOptions(node.Name)
	if len(topologyOptions.NUMANodeResources) == 0 {
		return out, nil
	}
	nodeCPUBindPolicy := extension.GetNodeCPUBindPolicy(node.Labels, topologyOptions.Policy)
	requestCPUBind, status := requestCPUBind(state, nodeCPUBindPolicy)
	if !status.IsSuccess() {
		return nil, status.AsError()
	}
	options, err := p.getResourceOptions(state, node, requestCPUBind, topologymanager.NUMATopologyHint{}, topologyOptions)
	if err != nil {
		return nil, err
	}
	rm := p.resourceManager.(*resourceManager)
	totalAvailable, _, err := rm.getAvailableNUMANodeResources(node.Name, options.topologyOptions, nil)
	if err != nil {
		return nil, err
	}
	if err := rm.trimNUMANodeResources(node.Name, totalAvailable, options); err != nil {
		return nil, err
	}
	numaNodeResources := options.topologyOptions.NUMANodeResources
	numaNodes := make([]int, 0, len(numaNodeResources))
	for _, v := range numaNodeResources {
		numaNodes = append(numaNodes, v.Node)
	}
	podRequestResources := framework.NewResource(options.requests)
	bitmask.IterateBitMasks(numaNodes, func(mask bitmask.BitMask) {
		available := make(corev1.ResourceList)
		total := make(corev1.ResourceList)
		for _, nodeID := range mask.GetBits() {
			util.AddResourceList(available, totalAvailable[nodeID])
			for _, v := range numaNodeResources {
				if v.Node == nodeID {
					util.AddResourceList(total, v.Resources)
					break
				}
			}
		}
		requested := quotav1.SubtractWithNonNegativeResult(total, available)
		score, _ := p.numaScorer.score(framework.NewResource(requested), framework.NewResource(total), podRequestResources)
		bits := mask.GetBits()
		sort.Ints(bits)
		key := make([]string, len(bits))
		for i, b := range bits {
			key[i] = strconv.Itoa(b)
		}
		out[strings.Join(key, ",")] = score
	})
	return out, nil
}
