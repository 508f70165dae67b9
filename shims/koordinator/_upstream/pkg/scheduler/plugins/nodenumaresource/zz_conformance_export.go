// This file is not part of Koordinator. shims/koordinator/build.sh copies it
// into a copy of the pinned release's pkg/scheduler/plugins/nodenumaresource,
// taken from the module cache, so the conformance shim can run the CPU set
// part of the resource manager's allocateCPUSet: the node's available CPUs,
// the required-policy filter, the accumulator and the required-policy check.
// It decides nothing itself; it only reaches what the package keeps
// unexported.

package nodenumaresource

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	schedulingconfig "github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config"
	"github.com/koordinator-sh/koordinator/pkg/util/cpuset"
)

// ConformanceHeldCPUs is a CPU set another pod holds, with the exclusive
// policy it was placed with.
type ConformanceHeldCPUs struct {
	CPUs            cpuset.CPUSet
	ExclusivePolicy schedulingconfig.CPUExclusivePolicy
}

// ConformanceTakeCPUs chooses need CPUs as allocateCPUSet does for a pod
// without NUMA split; onlyNUMANodes, when not nil, confines the choice to those
// NUMA nodes' CPUs. preferred are the pod's preferred CPUs (what a reservation
// or a designated allocation passes), given back and tried first as
// allocateCPUSet does; maxRefCount stands for the topology options' value.
func ConformanceTakeCPUs(
	topology *CPUTopology,
	reserved cpuset.CPUSet,
	held []ConformanceHeldCPUs,
	onlyNUMANodes []int,
	need int,
	policy schedulingconfig.CPUBindPolicy,
	required bool,
	exclusive schedulingconfig.CPUExclusivePolicy,
	strategy schedulingconfig.NUMAAllocateStrategy,
	preferred cpuset.CPUSet,
	maxRefCount int,
) (cpuset.CPUSet, error) {
	allocation := NewNodeAllocation("conformance")
	for i, h := range held {
		allocation.addCPUs(topology, types.UID(fmt.Sprintf("held-%d", i)), h.CPUs, h.ExclusivePolicy)
	}
	available, allocatedCPUs := allocation.getAvailableCPUs(topology, maxRefCount, reserved, preferred)
	if onlyNUMANodes != nil {
		available = available.Intersection(topology.CPUDetails.CPUsInNUMANodes(onlyNUMANodes...))
	}
	if required {
		available = filterCPUsByRequiredCPUBindPolicy(policy, available, topology.CPUDetails.KeepOnly(available), topology.CPUsPerCore())
	}
	if available.Size() < need {
		return cpuset.CPUSet{}, errors.New(ErrNotEnoughCPUs)
	}
	result, err := takePreferredCPUs(topology, maxRefCount, available, preferred, allocatedCPUs, need, policy, exclusive, strategy)
	if err != nil {
		return cpuset.CPUSet{}, err
	}
	if required {
		if err := satisfiedRequiredCPUBindPolicy(policy, result, topology); err != nil {
			return cpuset.CPUSet{}, err
		}
	}
	return result, nil
}
