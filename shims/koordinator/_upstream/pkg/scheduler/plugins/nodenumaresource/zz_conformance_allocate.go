// This file is not part of Koordinator. shims/koordinator/build.sh copies it
// into a copy of the pinned release's pkg/scheduler/plugins/nodenumaresource.
// It reaches the plugin's unexported allocation step for the shim's
// allocate operation and reads whether PreFilter took a designated
// allocation. It decides nothing itself.

package nodenumaresource

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	fwktype "k8s.io/kube-scheduler/framework"
)

// ConformanceAllocate is the step Reserve takes once the NUMA affinity is in
// the Topology Manager's store: the policy match Filter made before it, then
// the plugin's own allocate.
func (p *Plugin) ConformanceAllocate(ctx context.Context, cycleState fwktype.CycleState, pod *corev1.Pod, node *corev1.Node) *fwktype.Status {
	state, status := getPreFilterState(cycleState)
	if !status.IsSuccess() {
		return status
	}
	if state.skip {
		return nil
	}
	topologyOptions := p.topologyOptionsManager.GetTopologyOptions(node.Name)
	policy, err := mergeTopologyPolicy(getNUMATopologyPolicy(node.Labels, topologyOptions.NUMATopologyPolicy), state.podNUMATopologyPolicy)
	if err != nil {
		return fwktype.NewStatus(fwktype.UnschedulableAndUnresolvable, ErrNotMatchNUMATopology)
	}
	return p.allocate(ctx, cycleState, pod, node, policy)
}

// ConformanceDesignated says whether PreFilter took a designated allocation
// from the pod's resource status.
func ConformanceDesignated(cycleState fwktype.CycleState) bool {
	state, status := getPreFilterState(cycleState)
	return status.IsSuccess() && state != nil && state.designatedAllocation != nil
}
