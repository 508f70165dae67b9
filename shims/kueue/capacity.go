//go:build !kueue_main

package main

import (
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/resources"
	utiltas "sigs.k8s.io/kueue/pkg/util/tas"
)

type capacityInput struct {
	PodSet *podSetInput `json:"podSet"`
}

// nodeReason names the first of the cache's node checks a node fails; the
// checks are upstream's (NodeMatchesFlavor for the flavor labels and the
// level labels, then the nodes cache's schedulable-and-Ready test).
func nodeReason(node *corev1.Node, flavor *kueue.ResourceFlavor, levels []string) string {
	switch {
	case !utiltas.NodeMatchesFlavor(node.Labels, flavor.Spec.NodeLabels, nil):
		return "FlavorLabelsMismatch"
	case !utiltas.NodeMatchesFlavor(node.Labels, nil, levels):
		return "MissingTopologyLabel"
	case node.Spec.Unschedulable:
		return "Unschedulable"
	case utiltas.GetNodeCondition(node, corev1.NodeReady) == nil:
		return "NoReadyCondition"
	case !utiltas.IsNodeStatusConditionTrue(node.Status.Conditions, corev1.NodeReady):
		return "NotReady"
	}
	return ""
}

func runCapacity(raw json.RawMessage) answer {
	c, stop := loadCluster(raw)
	if stop != nil {
		return *stop
	}
	var in capacityInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("InvalidInput", err)
	}
	levels := utiltas.Levels(c.topology)
	included := map[string]bool{}
	for _, n := range c.cache.IncludedNodes() {
		included[n] = true
	}
	snap := c.cache.Snapshot()
	excluded := map[string]string{}
	excludedNodes := map[string]bool{}
	if in.PodSet != nil {
		tr, err := podSetRequests(*in.PodSet, c.flavor)
		if err != nil {
			return failure("InvalidInput", fmt.Errorf("podSet: %w", err))
		}
		exclusions, problem := snap.ConformanceFillCounts(tr)
		if problem != "" {
			return failure("the podset's nodeSelector or required node affinity is not a valid selector", fmt.Errorf("%s", problem))
		}
		for _, e := range exclusions {
			excluded[e.Node] = e.Reason
			excludedNodes[e.Node] = true
		}
	}
	nodes := make([]map[string]any, 0, len(c.nodes))
	for _, node := range c.nodes {
		entry := map[string]any{"name": node.Name, "included": true, "reason": nil}
		if !included[node.Name] {
			reason := nodeReason(node, c.flavor, levels)
			if reason == "" {
				return failure("the cache left out a node that passes every node check", fmt.Errorf("node %s", node.Name))
			}
			entry["included"], entry["reason"] = false, reason
		} else if r, found := excluded[node.Name]; found {
			entry["included"], entry["reason"] = false, r
		}
		nodes = append(nodes, entry)
	}
	domains := []map[string]any{}
	for _, d := range snap.ConformanceDomains(excludedNodes) {
		entry := map[string]any{"level": levels[d.Level], "values": d.Values, "free": freeMap(d.Free)}
		if in.PodSet != nil {
			entry["podCount"] = d.PodCount
		}
		domains = append(domains, entry)
	}
	return ok(map[string]any{"levels": levels, "nodes": nodes, "domains": domains})
}

func freeMap(r resources.Requests) map[string]int64 {
	out := map[string]int64{}
	for name, v := range r {
		out[string(name)] = v
	}
	return out
}

var _ = slices.Sort[[]string]
