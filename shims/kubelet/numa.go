package main

import (
	"encoding/json"
	"fmt"

	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"
	"topoconf/shims/kubelet/cadvisorapi"
)

// numaInput is the common `numa` field: node ids in topology order and,
// optionally, one distance row per node with columns in the same order.
type numaInput struct {
	Nodes     []int      `json:"nodes"`
	Distances [][]uint64 `json:"distances"`
}

// cadvisorNodes renders the topology the way cadvisor reports it to the
// kubelet: Node.Distances is indexed by NUMA node id, so a row written in
// topology order is spread onto the node ids. Without distances the field is
// nil, as cadvisor leaves it on a machine that does not report them.
func (n numaInput) cadvisorNodes() ([]cadvisorapi.Node, error) {
	if n.Distances != nil && len(n.Distances) != len(n.Nodes) {
		return nil, fmt.Errorf("numa.distances has %d rows for %d nodes", len(n.Distances), len(n.Nodes))
	}
	maxID := -1
	for _, id := range n.Nodes {
		if id < 0 {
			return nil, fmt.Errorf("numa node id %d is negative", id)
		}
		if id > maxID {
			maxID = id
		}
	}
	nodes := make([]cadvisorapi.Node, 0, len(n.Nodes))
	for i, id := range n.Nodes {
		node := cadvisorapi.Node{Id: id}
		if n.Distances != nil {
			row := n.Distances[i]
			if len(row) != len(n.Nodes) {
				return nil, fmt.Errorf("numa.distances row %d has %d columns for %d nodes", i, len(row), len(n.Nodes))
			}
			node.Distances = make([]uint64, maxID+1)
			for j, other := range n.Nodes {
				node.Distances[other] = row[j]
			}
		}
		nodes = append(nodes, node)
	}
	return nodes, nil
}

// maskFromJSON reads a fixture affinity: null is a nil mask ("don't care"),
// [] an empty non-nil mask, a list of ids the mask with those bits.
func maskFromJSON(raw json.RawMessage) (bitmask.BitMask, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var bits []int
	if err := json.Unmarshal(raw, &bits); err != nil {
		return nil, fmt.Errorf("affinity must be null or a list of NUMA node ids: %w", err)
	}
	if len(bits) == 0 {
		return bitmask.NewEmptyBitMask(), nil
	}
	return bitmask.NewBitMask(bits...)
}

// maskToJSON is the inverse: nil stays null, anything else its sorted bits.
func maskToJSON(m bitmask.BitMask) any {
	if m == nil {
		return nil
	}
	bits := m.GetBits()
	if bits == nil {
		bits = []int{}
	}
	return bits
}
