package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	apiext "github.com/koordinator-sh/koordinator/apis/extension"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/topologymanager"
	"github.com/koordinator-sh/koordinator/pkg/util/bitmask"

	"topoconf/shims/protocol"
)

type hintJSON struct {
	Affinity    *[]int `json:"affinity"`
	Preferred   bool   `json:"preferred"`
	Score       int64  `json:"score"`
	Unsatisfied bool   `json:"unsatisfied"`
}

type mergeInput struct {
	Policy                  string                   `json:"policy"`
	NUMANodes               []int                    `json:"numaNodes"`
	SingleNUMANodeExclusive *string                  `json:"singleNUMANodeExclusive"`
	NUMANodeStatus          map[string]string        `json:"numaNodeStatus"`
	Providers               []map[string]*[]hintJSON `json:"providers"`
}

// policyFor builds the release's policy for a policy name, as the Topology
// Manager's createNUMATopologyPolicy does; None and "" get the none policy,
// which the manager never builds (it does not admit through it).
func policyFor(name string, numaNodes []int) (topologymanager.Policy, error) {
	switch apiext.NUMATopologyPolicy(name) {
	case apiext.NUMATopologyPolicyNone, "None":
		return topologymanager.NewNonePolicy(), nil
	case apiext.NUMATopologyPolicyBestEffort:
		return topologymanager.NewBestEffortPolicy(numaNodes), nil
	case apiext.NUMATopologyPolicyRestricted:
		return topologymanager.NewRestrictedPolicy(numaNodes), nil
	case apiext.NUMATopologyPolicySingleNUMANode:
		return topologymanager.NewSingleNumaNodePolicy(numaNodes), nil
	}
	return nil, fmt.Errorf("unknown policy %q", name)
}

func toHints(in *[]hintJSON) ([]topologymanager.NUMATopologyHint, error) {
	if in == nil {
		return nil, nil
	}
	out := make([]topologymanager.NUMATopologyHint, 0, len(*in))
	for _, h := range *in {
		hint := topologymanager.NUMATopologyHint{Preferred: h.Preferred, Score: h.Score, Unsatisfied: h.Unsatisfied}
		if h.Affinity != nil {
			mask, err := bitmask.NewBitMask(*h.Affinity...)
			if err != nil {
				return nil, err
			}
			hint.NUMANodeAffinity = mask
		}
		out = append(out, hint)
	}
	return out, nil
}

// mergeRepeats is how often a merge is repeated when one provider reports
// two or more resources with an empty hint list: filterProvidersHints names
// each of them ("Unsatisfied NUMA <resource>") as it ranges over the
// provider's map of resources, so their order is Go map order and changes
// from run to run.
const mergeRepeats = 64

// reasonsOrderMarker starts the text of a non-deterministic answer whose runs
// differed in the order of those reasons alone; the result follows it, its
// reasons sorted.
const reasonsOrderMarker = "apart from that order every run gave "

func runMerge(raw json.RawMessage) answer {
	if !reasonsInMapOrder(raw) {
		return mergeOnce(raw)
	}
	return protocol.Repeat(mergeRepeats, func() answer { return mergeOnce(raw) }, func(runs int, distinct []any) string {
		sortedForms := map[string]bool{}
		for _, result := range distinct {
			sortedForm, _ := json.Marshal(withSortedReasons(result))
			sortedForms[string(sortedForm)] = true
		}
		if len(sortedForms) == 1 {
			var only string
			for s := range sortedForms {
				only = s
			}
			return fmt.Sprintf("not deterministic: over %d runs the release named the unsatisfied resources of one provider in %d different orders (filterProvidersHints ranges over the provider's map of resources, Go map order); %s%s",
				runs, len(distinct), reasonsOrderMarker, only)
		}
		return fmt.Sprintf("not deterministic: the release gave %d different results for this input over %d runs", len(distinct), runs)
	})
}

// reasonsInMapOrder says whether some provider gives two or more resources an
// empty hint list, the only case in which the order of the merge's reasons
// can vary.
func reasonsInMapOrder(raw json.RawMessage) bool {
	var in mergeInput
	if json.Unmarshal(raw, &in) != nil {
		return false
	}
	for _, p := range in.Providers {
		empty := 0
		for _, hints := range p {
			if hints != nil && len(*hints) == 0 {
				empty++
			}
		}
		if empty >= 2 {
			return true
		}
	}
	return false
}

func withSortedReasons(result any) any {
	m, isMap := result.(map[string]any)
	if !isMap {
		return result
	}
	reasons, isList := m["reasons"].([]string)
	if !isList {
		return result
	}
	copied := make(map[string]any, len(m))
	for k, v := range m {
		copied[k] = v
	}
	sorted := append([]string(nil), reasons...)
	sort.Strings(sorted)
	copied["reasons"] = sorted
	return copied
}

func mergeOnce(raw json.RawMessage) answer {
	var in mergeInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("InvalidInput", err)
	}
	policy, err := policyFor(in.Policy, in.NUMANodes)
	if err != nil {
		return failure("InvalidInput", err)
	}
	providers := make([]map[string][]topologymanager.NUMATopologyHint, 0, len(in.Providers))
	for i, p := range in.Providers {
		m := map[string][]topologymanager.NUMATopologyHint{}
		for resource, hints := range p {
			h, err := toHints(hints)
			if err != nil {
				return failure("InvalidInput", fmt.Errorf("providers[%d].%s: %w", i, resource, err))
			}
			m[resource] = h
		}
		providers = append(providers, m)
	}
	exclusive := apiext.NumaTopologyExclusive("")
	if in.SingleNUMANodeExclusive != nil {
		exclusive = apiext.NumaTopologyExclusive(*in.SingleNUMANodeExclusive)
	}
	statuses, err := nodeStatuses(in.NUMANodes, in.NUMANodeStatus)
	if err != nil {
		return failure("InvalidInput", err)
	}
	hint, admit, reasons := policy.Merge(providers, exclusive, statuses)
	var reason any
	if !admit {
		switch {
		case anyHasPrefix(reasons, "Unsatisfied NUMA"):
			reason = "UnsatisfiedNUMAResource"
		default:
			reason = "UnalignedNUMAHint"
			if exclusive == apiext.NumaTopologyExclusiveRequired {
				if _, admitWithout, _ := policy.Merge(providers, "", statuses); admitWithout {
					reason = "SingleNUMANodeExclusiveConflict"
				}
			}
		}
	}
	var affinity any
	if hint.NUMANodeAffinity != nil {
		bits := hint.NUMANodeAffinity.GetBits()
		sort.Ints(bits)
		affinity = bits
	}
	if reasons == nil {
		reasons = []string{}
	}
	return ok(map[string]any{
		"affinity":    affinity,
		"preferred":   hint.Preferred,
		"unsatisfied": hint.Unsatisfied,
		"score":       hint.Score,
		"admit":       admit,
		"reason":      reason,
		"reasons":     reasons,
	})
}

// nodeStatuses lays the status map out as the slice the merge indexes by
// NUMA node id; ids not given are idle.
func nodeStatuses(numaNodes []int, given map[string]string) ([]apiext.NumaNodeStatus, error) {
	size := 0
	for _, id := range numaNodes {
		size = max(size, id+1)
	}
	for key := range given {
		id, err := strconv.Atoi(key)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("numaNodeStatus: %q is not a NUMA node id", key)
		}
		size = max(size, id+1)
	}
	out := make([]apiext.NumaNodeStatus, size)
	for i := range out {
		out[i] = apiext.NumaNodeStatusIdle
	}
	for key, status := range given {
		id, _ := strconv.Atoi(key)
		out[id] = apiext.NumaNodeStatus(status)
	}
	return out, nil
}

func anyHasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
