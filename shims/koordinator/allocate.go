package main

// The allocate operation (docs/operations/koordinator.md): NodeNUMAResource's
// allocation step on the NUMA affinity the case supplies, put in the Topology
// Manager's store as the admit would put it, and a designated allocation
// checked by the plugin's own Filter once the pod's scheduling hint is in the
// cycle state, as the SchedulingHint plugin's BeforePreFilter writes it.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	fwktype "k8s.io/kube-scheduler/framework"

	apiext "github.com/koordinator-sh/koordinator/apis/extension"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/hinter"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/topologymanager"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/plugins/nodenumaresource"
	"github.com/koordinator-sh/koordinator/pkg/util/bitmask"

	"topoconf/shims/protocol"
)

func runAllocate(raw json.RawMessage) answer {
	in, nodes, pod, early := decodeCase(raw)
	if early != nil {
		return *early
	}
	var extra struct {
		Affinity []int `json:"affinity"`
	}
	if err := json.Unmarshal(raw, &extra); err != nil {
		return failure("InvalidInput", err)
	}
	c, err := newCycle(in.Args, nodes, pod)
	if err != nil {
		return unsupported("the release refuses these plugin arguments: %v", err)
	}
	n := nodes[0]
	result := map[string]any{
		"allocated": true, "reason": nil, "message": nil, "stage": nil, "code": nil,
		"designated": false, "numaResources": map[string]any{}, "cpuset": nil, "cpusetString": nil,
	}
	refuse := func(stage, reason string, status *fwktype.Status) answer {
		result["allocated"], result["reason"], result["stage"] = false, reason, stage
		result["message"], result["code"] = status.Message(), status.Code().String()
		return ok(result)
	}
	ctx := context.Background()
	var status *fwktype.Status
	hintUnreadable := false
	protocol.Timed("allocate", func() {
		hint, err := apiext.GetSchedulingHint(pod)
		if err != nil {
			// The SchedulingHint plugin's BeforePreFilter answers so, before any PreFilter.
			status, hintUnreadable = fwktype.NewStatus(fwktype.Error, err.Error()), true
			return
		}
		if hint != nil {
			hinter.SetSchedulingHintState(c.state, &hinter.SchedulingHintStateData{
				PreFilterNodes: hint.NodeNames, PreferredNodes: hint.PreferredNodeNames, Extensions: hint.Extensions,
			})
		}
		infos, _ := c.handle.lister.List()
		if _, s := c.nnr.PreFilter(ctx, c.state, pod, infos); !s.IsSuccess() && !s.IsSkip() {
			status = s
		}
	})
	if status != nil {
		reason := reasonOf(pod, n, "PreFilter", status)
		if hintUnreadable {
			reason = "InvalidSchedulingHint"
		} else if reason == "InvalidDeviceRequest" {
			// reasonOf's fallback for a PreFilter message it does not know: with
			// DeviceShare's PreFilter not run, only the resource status is left.
			if _, err := apiext.GetResourceStatus(pod.Annotations); err != nil {
				reason = "InvalidResourceStatus"
			}
		}
		return refuse("PreFilter", reason, status)
	}
	if extra.Affinity != nil {
		mask, err := bitmask.NewBitMask(extra.Affinity...)
		if err != nil {
			return failure("InvalidInput", fmt.Errorf("affinity: %w", err))
		}
		topologymanager.GetStore(c.state).SetAffinity(n.name, topologymanager.NUMATopologyHint{NUMANodeAffinity: mask})
	}
	designated := nodenumaresource.ConformanceDesignated(c.state)
	result["designated"] = designated
	stage := "Reserve"
	protocol.Timed("allocate", func() {
		if designated {
			stage = "Filter"
			status = c.nnr.Filter(ctx, c.state, pod, c.handle.lister.infos[n.name])
		} else {
			status = c.nnr.ConformanceAllocate(ctx, c.state, pod, n.node)
		}
	})
	if !status.IsSuccess() {
		reason := reasonOf(pod, n, stage, status)
		switch msg := status.Message(); {
		case strings.Contains(msg, "insufficient resources on NUMA Node"):
			reason = "MissingNUMAResources"
		case strings.Contains(strings.ToLower(msg), "amplification"):
			reason = "InvalidAmplificationRatio"
		}
		return refuse(stage, reason, status)
	}
	numaAllocationOut(c.state, result)
	return ok(result)
}
