package main

// What an input needs that the release does not implement, as
// docs/operations/koordinator.md records for upstream v1.8: the hello leaves
// these features out, and an input needing one is answered `unsupported`.

import (
	"encoding/json"

	apiext "github.com/koordinator-sh/koordinator/apis/extension"
)

var knownLabelValues = map[string][]string{
	apiext.LabelNUMATopologyPolicy:       {"", "None", "BestEffort", "Restricted", "SingleNUMANode"},
	apiext.LabelNodeNUMAAllocateStrategy: {"", "MostAllocated", "LeastAllocated", "DistributeEvenly"},
	apiext.LabelNodeCPUBindPolicy:        {"", "None", "FullPCPUsOnly", "SpreadByPCPUs"},
	apiext.LabelGPUPartitionPolicy:       {"", "Honor", "Prefer"},
}

const noneSpelledOut = "NUMA topology policy spelled \"None\": the release's None is the empty string, so it takes \"None\" for a policy of its own, which conflicts with any other and for which its Topology Manager has no policy (a nil policy is dereferenced in calculateAffinity); the shim cannot answer it"

func labelsNeed(labels map[string]string) string {
	if labels[apiext.LabelNUMATopologyPolicy] == "None" {
		return noneSpelledOut
	}
	for key, values := range knownLabelValues {
		v, found := labels[key]
		if !found {
			continue
		}
		known := false
		for _, k := range values {
			known = known || k == v
		}
		if !known {
			return "the node label " + key + "=" + v + " is malformed; the release passes it through and the contract's refusal of malformed node labels (koordinator.validation.labels) is not implemented by it"
		}
	}
	if labels[apiext.LabelNodeNUMAAllocateStrategy] == "DistributeEvenly" {
		return "NUMA allocate strategy DistributeEvenly: declared by the release, not implemented (koordinator.numa.strategy.distribute-evenly)"
	}
	return ""
}

func scoringNeed(s *scoringJSON) string {
	if s != nil && s.Type == "BalancedAllocation" {
		return "BalancedAllocation scoring: the release rejects it when the plugin is built (koordinator.score.*.balanced-allocation)"
	}
	return ""
}

func needsUnsupported(in caseInput) string {
	if n := in.Args.NodeNUMAResource; n != nil {
		if r := scoringNeed(n.ScoringStrategy); r != "" {
			return r
		}
		if r := scoringNeed(n.NUMAScoringStrategy); r != "" {
			return r
		}
		if r := numaWeightsNeed(n.ScoringStrategy, n.NUMAScoringStrategy); r != "" {
			return r
		}
		if n.NUMAAllocateStrategy != nil && *n.NUMAAllocateStrategy != "" {
			derived := "LeastAllocated"
			if n.NUMAScoringStrategy != nil && n.NUMAScoringStrategy.Type == "MostAllocated" {
				derived = "MostAllocated"
			}
			if *n.NUMAAllocateStrategy != derived {
				return "args.nodeNUMAResource.numaAllocateStrategy " + *n.NUMAAllocateStrategy + ": the release has no such argument; its default NUMA allocate strategy follows numaScoringStrategy.type (" + derived + " here)"
			}
		}
	}
	nodes := in.Nodes
	if in.Node != nil {
		nodes = append(nodes, *in.Node)
	}
	for _, n := range nodes {
		if r := labelsNeed(n.Labels); r != "" {
			return r
		}
		if r := labelsNeed(n.DeviceLabels); r != "" {
			return r
		}
	}
	if in.Pod != nil {
		ann := in.Pod.Annotations
		if raw, found := ann[apiext.AnnotationNUMATopologySpec]; found {
			var spec map[string]json.RawMessage
			if json.Unmarshal([]byte(raw), &spec) == nil {
				if string(spec["numaTopologyPolicy"]) == `"None"` {
					return noneSpelledOut
				}
				if v, has := spec["numaAllocateStrategy"]; has && string(v) != "null" {
					return "pod-level numaAllocateStrategy: the release's numa-topology-spec has no such field (koordinator.numa.strategy.distribute-evenly)"
				}
			}
		}
	}
	return ""
}

// numaWeightsNeed: v1.8.0 builds the NUMA scorer with scoringStrategy's
// resources (resourceStrategyTypeMap reads args.ScoringStrategy.Resources for
// both scorers), so numaScoringStrategy.resources other than those cannot be
// configured.
func numaWeightsNeed(node, numa *scoringJSON) string {
	if numa == nil || numa.Resources == nil {
		return ""
	}
	weights := func(s *scoringJSON) map[string]int64 {
		out := map[string]int64{}
		if s == nil || s.Resources == nil {
			return map[string]int64{"cpu": 1, "memory": 1}
		}
		for _, r := range s.Resources {
			out[r.Name] = r.Weight
		}
		return out
	}
	a, b := weights(node), weights(numa)
	same := len(a) == len(b)
	for k, v := range a {
		same = same && b[k] == v
	}
	if same {
		return ""
	}
	return "numaScoringStrategy.resources other than scoringStrategy's: v1.8.0's NUMA scorer weighs scoringStrategy.resources (resourceStrategyTypeMap), so these weights cannot be configured"
}
