// This file is not part of Koordinator. shims/koordinator/build.sh copies it
// into a copy of the pinned release's pkg/scheduler/plugins/deviceshare,
// taken from the module cache. It builds the plugin without the informers
// and garbage collector New starts (the shim feeds the Device and the placed
// pods to the plugin's own event handlers instead) and reads back what the
// package keeps unexported: the PreFilter state and the allocation Reserve
// made. It decides nothing itself.

package deviceshare

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwktype "k8s.io/kube-scheduler/framework"

	apiext "github.com/koordinator-sh/koordinator/apis/extension"
	schedulingv1alpha1 "github.com/koordinator-sh/koordinator/apis/scheduling/v1alpha1"
	schedulerconfig "github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config/validation"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext"
)

// ConformanceNew is New without the informers and the cache's garbage
// collector: the same argument validation, scorer and caches.
func ConformanceNew(args *schedulerconfig.DeviceShareArgs, handle frameworkext.ExtendedHandle) (*Plugin, error) {
	if err := validation.ValidateDeviceShareArgs(nil, args); err != nil {
		return nil, err
	}
	if args.ScoringStrategy == nil {
		return nil, fmt.Errorf("scoring strategy not specified")
	}
	scorePlugin, exists := deviceResourceStrategyTypeMap[args.ScoringStrategy.Type]
	if !exists {
		return nil, fmt.Errorf("scoring strategy %s is not supported", args.ScoringStrategy.Type)
	}
	gpuShareUnsupportedModels := make(map[string]sets.Set[string])
	for _, m := range args.GPUShareUnsupportedModels {
		if _, ok := gpuShareUnsupportedModels[m.Vendor]; !ok {
			gpuShareUnsupportedModels[m.Vendor] = sets.New[string]()
		}
		gpuShareUnsupportedModels[m.Vendor].Insert(m.Model)
	}
	var matched []corev1.ResourceName
	if args.GPUSharedResourceTemplatesConfig != nil {
		matched = args.GPUSharedResourceTemplatesConfig.MatchedResources
	}
	return &Plugin{
		handle:                          handle,
		nodeDeviceCache:                 newNodeDeviceCache(),
		gpuSharedResourceTemplatesCache: newGPUSharedResourceTemplatesCache(),
		gpuSharedResourceTemplatesMatchedResources: matched,
		gpuShareUnsupportedModels:                  gpuShareUnsupportedModels,
		scorer:                                     scorePlugin(args),
		disableDeviceNUMATopologyAlignment:         args.DisableDeviceNUMATopologyAlignment,
	}, nil
}

// ConformanceAddDevice hands a Device to the device cache's event handler.
func (p *Plugin) ConformanceAddDevice(device *schedulingv1alpha1.Device) {
	p.nodeDeviceCache.onDeviceAdd(device)
}

// ConformanceAddPod hands a placed pod to the device cache's pod event handler.
func (p *Plugin) ConformanceAddPod(pod *corev1.Pod) {
	p.nodeDeviceCache.onPodAdd(pod)
}

// ConformanceState is what PreFilter parsed from the pod.
type ConformanceState struct {
	Skip                   bool
	Hints                  apiext.DeviceAllocateHints
	JointAllocate          *apiext.DeviceJointAllocate
	HonorGPUPartition      bool
	RestrictedGPUPartition bool
	Requests               map[schedulingv1alpha1.DeviceType]corev1.ResourceList
}

func ConformancePreFilterState(cycleState fwktype.CycleState) *ConformanceState {
	state, status := getPreFilterState(cycleState)
	if !status.IsSuccess() || state == nil {
		return nil
	}
	out := &ConformanceState{Skip: state.skip, Hints: state.hints, JointAllocate: state.jointAllocate, Requests: state.podRequests}
	if state.gpuRequirements != nil {
		out.HonorGPUPartition = state.gpuRequirements.honorGPUPartition
		out.RestrictedGPUPartition = state.gpuRequirements.restrictedGPUPartition
	}
	return out
}

// ConformanceAllocation is the device allocation Reserve left in the cycle state.
func ConformanceAllocation(cycleState fwktype.CycleState) apiext.DeviceAllocations {
	state, status := getPreFilterState(cycleState)
	if !status.IsSuccess() || state == nil {
		return nil
	}
	return state.allocationResult
}
