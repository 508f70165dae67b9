package main

// Repeating filter and score where the release's answer depends on Go map
// order. DeviceShare keeps a pod's device requests in a map keyed by device
// type and ranges over it when it prepares the request of each type
// (AutopilotAllocator.Prepare, calcRequestsAndCountByDeviceType) and when it
// allocates them (allocateDevices): when two types cannot be allocated, which
// refusal the pod gets changes from run to run. Such an input is answered
// as not deterministic, never with one of its answers picked at random.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/koordinator-sh/koordinator/pkg/scheduler/plugins/deviceshare"

	"topoconf/shims/protocol"
)

// deviceOrderRepeats is how often a case is run when its pod requests two or
// more device types.
const deviceOrderRepeats = 64

func repeatedWhenDeviceOrderMatters(raw json.RawMessage, once func(json.RawMessage) answer) answer {
	if deviceTypesRequested(raw) < 2 {
		return once(raw)
	}
	return protocol.Repeat(deviceOrderRepeats, func() answer { return once(raw) }, func(runs int, distinct []any) string {
		refusals := map[string]bool{}
		for _, result := range distinct {
			refusals[refusalsOf(result)] = true
		}
		return fmt.Sprintf("not deterministic: the release gave %d different results for this input over %d runs (DeviceShare prepares and allocates the pod's device types in Go map order, so which type's refusal is reported varies); the runs' refusals: %s",
			len(distinct), runs, strings.Join(sortedKeys(refusals), " | "))
	})
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// refusalsOf condenses a filter or score result to its refusal codes: the
// reason, "fits" when the pod fits; for score, one per node joined by ",".
func refusalsOf(result any) string {
	one := func(row map[string]any) string {
		if fits, _ := row["fits"].(bool); fits {
			return "fits"
		}
		reason, _ := row["reason"].(string)
		return reason
	}
	m, isMap := result.(map[string]any)
	if !isMap {
		return ""
	}
	rows, isScore := m["nodes"].([]any)
	if !isScore {
		return one(m)
	}
	parts := make([]string, 0, len(rows))
	for _, r := range rows {
		row, _ := r.(map[string]any)
		parts = append(parts, one(row))
	}
	return strings.Join(parts, ",")
}

// deviceTypesRequested counts the device types the pod's containers request
// a non-zero amount of (DeviceShare's resource names per type).
func deviceTypesRequested(raw json.RawMessage) int {
	var in caseInput
	if json.Unmarshal(raw, &in) != nil || in.Pod == nil {
		return 0
	}
	pod := buildPod(*in.Pod)
	count := 0
	for _, names := range deviceshare.DeviceResourceNames {
		requested := false
		for _, c := range pod.Spec.Containers {
			for _, name := range names {
				if q, found := c.Resources.Requests[name]; found && !q.IsZero() {
					requested = true
				}
			}
		}
		if requested {
			count++
		}
	}
	return count
}
