package main

import (
	"encoding/json"
	"strconv"

	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"topoconf/shims/kubelet/cadvisorapi"
)

// NUMA discovery in start (docs/operations/kubelet.md, start): the result
// also says what the Topology Manager read from the machine information, and
// the input may be that information itself (`machine`). The report is the
// NUMAInfo upstream's NewNUMAInfo builds from the same nodes and options
// NewManager was given.

// Registered here so start.go and main.go stay as they are: start answers
// through runStart, and this adds the discovered topology to its result.
func init() {
	inner := operations["start"]
	operations["start"] = func(raw json.RawMessage) answer { return startWithDiscovery(raw, inner) }
}

type machineNode struct {
	ID        int      `json:"id"`
	Distances []uint64 `json:"distances"`
}

type discoveryInput struct {
	commonInput
	Machine *struct {
		NUMANodes []machineNode `json:"numaNodes"`
	} `json:"machine"`
	KubeletConfiguration tmConfig `json:"kubeletConfiguration"`
}

func startWithDiscovery(raw json.RawMessage, inner func(json.RawMessage) answer) answer {
	var in discoveryInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("the start input does not match the contract", err)
	}
	var nodes []cadvisorapi.Node
	var a answer
	if in.Machine == nil {
		// The contract's numa form, as runStart hands it to the kubelet.
		nodes = []cadvisorapi.Node{{Id: 0}}
		if in.NUMA != nil {
			var err error
			if nodes, err = in.NUMA.cadvisorNodes(); err != nil {
				return failure("invalid numa", err)
			}
		}
		a = inner(raw)
	} else {
		if in.NUMA != nil {
			return failure("give the topology either as numa or as machine, not both", nil)
		}
		for _, n := range in.Machine.NUMANodes {
			// JSON null stays a nil row (no distances), [] an empty one.
			nodes = append(nodes, cadvisorapi.Node{Id: n.ID, Distances: n.Distances})
		}
		a = startOn(in.commonInput, in.KubeletConfiguration, nodes)
	}
	result, isMap := a.Result.(map[string]any)
	if !isMap || result["started"] != true {
		return a
	}
	discovered, err := discoveredNUMA(result, nodes)
	if err != nil {
		return failure("NewNUMAInfo failed after NewManager accepted the topology", err)
	}
	result["numa"] = discovered
	return a
}

// discoveredNUMA builds the NUMAInfo NewManager built: NewNUMAInfo reads only
// PreferClosestNUMA of the options. Policy none builds none.
func discoveredNUMA(started map[string]any, nodes []cadvisorapi.Node) (any, error) {
	if started["policy"] == topologymanager.PolicyNone {
		return nil, nil
	}
	opts, _ := started["options"].(map[string]any)
	prefer, _ := opts["preferClosestNUMA"].(bool)
	info, err := topologymanager.NewNUMAInfo(nodes, topologymanager.PolicyOptions{PreferClosestNUMA: prefer})
	if err != nil {
		return nil, err
	}
	distances := map[string]any{}
	for _, id := range info.Nodes {
		if row := info.NUMADistances[id]; row != nil {
			distances[strconv.Itoa(id)] = row
		} else {
			distances[strconv.Itoa(id)] = nil
		}
	}
	return map[string]any{"nodes": info.Nodes, "distances": distances}, nil
}
