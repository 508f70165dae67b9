package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/plugins/nodenumaresource"
	"github.com/koordinator-sh/koordinator/pkg/util/cpuset"

	"topoconf/shims/protocol"
)

// cpuTopologyJSON is the contract's CPU topology: the compact form or the
// explicit NodeResourceTopology cpu list.
type cpuTopologyJSON struct {
	Sockets            int `json:"sockets"`
	NUMANodesPerSocket int `json:"numaNodesPerSocket"`
	CoresPerNUMANode   int `json:"coresPerNUMANode"`
	ThreadsPerCore     int `json:"threadsPerCore"`
	CPUs               []struct {
		ID     int `json:"id"`
		Core   int `json:"core"`
		Socket int `json:"socket"`
		Node   int `json:"node"`
	} `json:"cpus"`
}

func buildTopology(t cpuTopologyJSON) *nodenumaresource.CPUTopology {
	b := nodenumaresource.NewCPUTopologyBuilder()
	for _, c := range cpuTopologyDetail(t) {
		b.AddCPUInfo(int(c.Socket), int(c.Node), int(c.Core), int(c.ID))
	}
	return b.Result()
}

// parseCPUs reads a Linux CPU list string or a list of ids.
func parseCPUs(raw json.RawMessage) (cpuset.CPUSet, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return cpuset.NewCPUSet(), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return cpuset.Parse(strings.TrimSpace(s))
	}
	var ids []int
	if err := json.Unmarshal(raw, &ids); err != nil {
		return cpuset.CPUSet{}, fmt.Errorf("a CPU set is a list string or a list of ids: %w", err)
	}
	return cpuset.NewCPUSet(ids...), nil
}

type cpusetInput struct {
	CPUTopology  *cpuTopologyJSON `json:"cpuTopology"`
	ReservedCPUs json.RawMessage  `json:"reservedCPUs"`
	Allocated    []struct {
		CPUSet             json.RawMessage `json:"cpuset"`
		CPUExclusivePolicy string          `json:"cpuExclusivePolicy"`
	} `json:"allocated"`
	Need                 *int            `json:"need"`
	CPUBindPolicy        string          `json:"cpuBindPolicy"`
	Required             bool            `json:"required"`
	CPUExclusivePolicy   string          `json:"cpuExclusivePolicy"`
	NUMAAllocateStrategy string          `json:"numaAllocateStrategy"`
	NUMANodes            *[]int          `json:"numaNodes"`
	PreferredCPUs        json.RawMessage `json:"preferredCPUs"`
	MaxRefCount          *int            `json:"maxRefCount"`
}

func runCPUSet(raw json.RawMessage) answer {
	var in cpusetInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("InvalidInput", err)
	}
	if in.CPUTopology == nil {
		return failure("InvalidInput", fmt.Errorf("cpuTopology: required"))
	}
	if in.Need == nil || *in.Need < 0 {
		return failure("InvalidInput", fmt.Errorf("need: expected a non-negative integer"))
	}
	topology := buildTopology(*in.CPUTopology)
	reserved, err := parseCPUs(in.ReservedCPUs)
	if err != nil {
		return failure("InvalidInput", fmt.Errorf("reservedCPUs: %w", err))
	}
	var held []nodenumaresource.ConformanceHeldCPUs
	for i, a := range in.Allocated {
		cpus, err := parseCPUs(a.CPUSet)
		if err != nil {
			return failure("InvalidInput", fmt.Errorf("allocated/%d/cpuset: %w", i, err))
		}
		for _, c := range cpus.ToSlice() {
			if _, found := topology.CPUDetails[c]; !found {
				return failure("InvalidInput", fmt.Errorf("allocated/%d/cpuset: CPU %d is not in the topology", i, c))
			}
		}
		held = append(held, nodenumaresource.ConformanceHeldCPUs{CPUs: cpus, ExclusivePolicy: config.CPUExclusivePolicy(a.CPUExclusivePolicy)})
	}
	preferred, err := parseCPUs(in.PreferredCPUs)
	if err != nil {
		return failure("InvalidInput", fmt.Errorf("preferredCPUs: %w", err))
	}
	for _, c := range preferred.ToSlice() {
		if _, found := topology.CPUDetails[c]; !found {
			return failure("InvalidInput", fmt.Errorf("preferredCPUs: CPU %d is not in the topology", c))
		}
	}
	maxRefCount := 1
	if in.MaxRefCount != nil {
		if *in.MaxRefCount < 1 {
			return failure("InvalidInput", fmt.Errorf("maxRefCount: expected an integer of at least 1 (how many pods may hold one CPU)"))
		}
		maxRefCount = *in.MaxRefCount
	}
	policy := in.CPUBindPolicy
	if policy == "" {
		policy = string(config.CPUBindPolicyDefault)
	}
	strategy := in.NUMAAllocateStrategy
	if strategy == "" {
		strategy = string(config.NUMAMostAllocated)
	}
	exclusive := in.CPUExclusivePolicy
	if exclusive == "" {
		exclusive = string(config.CPUExclusivePolicyNone)
	}
	var onlyNUMA []int
	if in.NUMANodes != nil {
		onlyNUMA = *in.NUMANodes
		if onlyNUMA == nil {
			onlyNUMA = []int{}
		}
	}
	var result cpuset.CPUSet
	protocol.Timed("cpuset", func() {
		result, err = nodenumaresource.ConformanceTakeCPUs(topology, reserved, held, onlyNUMA, *in.Need,
			config.CPUBindPolicy(policy), in.Required, config.CPUExclusivePolicy(exclusive), config.NUMAAllocateStrategy(strategy),
			preferred, maxRefCount)
	})
	if err != nil {
		return ok(map[string]any{"allocated": false, "reason": "InsufficientCPUs", "message": err.Error()})
	}
	ids := result.ToSlice()
	if ids == nil {
		ids = []int{}
	}
	return ok(map[string]any{"allocated": true, "cpuset": ids, "cpusetString": result.String()})
}

var _ = strconv.Itoa
