package main

// The filter, resolve and score operations (docs/operations/koordinator.md)
// answered by one cycle of the release's plugins (pipeline.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	fwktype "k8s.io/kube-scheduler/framework"

	apiext "github.com/koordinator-sh/koordinator/apis/extension"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/schedulingphase"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/topologymanager"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/plugins/deviceshare"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/plugins/nodenumaresource"

	"topoconf/shims/protocol"
)

func recordPhaseReserve(s fwktype.CycleState) {
	schedulingphase.RecordPhase(s, schedulingphase.Reserve)
}
func recordPhaseNone(s fwktype.CycleState) { schedulingphase.RecordPhase(s, "") }

type caseInput struct {
	Node  *nodeJSON  `json:"node"`
	Nodes []nodeJSON `json:"nodes"`
	Pod   *podJSON   `json:"pod"`
	Args  argsJSON   `json:"args"`
}

func decodeCase(raw json.RawMessage) (caseInput, []*builtNode, *corev1.Pod, *answer) {
	var in caseInput
	if err := json.Unmarshal(raw, &in); err != nil {
		a := failure("InvalidInput", err)
		return in, nil, nil, &a
	}
	if reason := needsUnsupported(in); reason != "" {
		a := unsupported("%s", reason)
		return in, nil, nil, &a
	}
	var specs []nodeJSON
	if in.Nodes != nil {
		specs = in.Nodes
	} else if in.Node != nil {
		specs = []nodeJSON{*in.Node}
	} else {
		specs = []nodeJSON{{}}
	}
	var nodes []*builtNode
	names := map[string]bool{}
	for i, spec := range specs {
		where := "node"
		if in.Nodes != nil {
			where = fmt.Sprintf("nodes/%d", i)
		}
		n, err := buildNode(spec, where)
		if err != nil {
			a := failure("InvalidInput", err)
			return in, nil, nil, &a
		}
		if names[n.name] {
			a := failure("InvalidInput", fmt.Errorf("%s/name: duplicate node name %q", where, n.name))
			return in, nil, nil, &a
		}
		names[n.name] = true
		nodes = append(nodes, n)
	}
	var pod podJSON
	if in.Pod != nil {
		pod = *in.Pod
	}
	return in, nodes, buildPod(pod), nil
}

// ---------------------------------------------------------------- reasons

// reasonOf names the contract's refusal code for a status the release gave.
func reasonOf(pod *corev1.Pod, n *builtNode, stage string, status *fwktype.Status) string {
	msg := status.Message()
	has := func(s string) bool { return strings.Contains(msg, s) }
	if stage == "PreFilter" {
		if _, err := apiext.GetSchedulingHint(pod); err != nil {
			return "InvalidSchedulingHint"
		}
		if _, err := apiext.GetResourceSpec(pod.Annotations); err != nil {
			return "InvalidResourceSpec"
		}
		if _, err := apiext.GetNUMATopologySpec(pod.Annotations); err != nil {
			return "InvalidNUMATopologySpec"
		}
		switch {
		case has(nodenumaresource.ErrInvalidRequestedCPUs):
			return "InvalidRequestedCPUs"
		case has("DeviceAllocateHint"), has("Selector of DeviceHint"):
			return "InvalidDeviceAllocateHint"
		case has("DeviceJointAllocate"):
			return "InvalidDeviceJointAllocate"
		case has("GPUPartitionSpec"):
			return "InvalidGPUPartitionSpec"
		}
		if _, err := deviceshare.GetPodDeviceRequests(pod); err == nil {
			// DeviceShare reads the pod's device-allocated right after its requests.
			if _, err := apiext.GetDeviceAllocations(pod.Annotations); err != nil && msg == err.Error() {
				return "InvalidDeviceAllocated"
			}
		}
		return "InvalidDeviceRequest"
	}
	switch {
	case has(nodenumaresource.ErrNotMatchNUMATopology):
		return "ErrNotMatchNUMATopology"
	case has("fillGPUTotalMem failed"):
		return "MissingDesignatedGPU"
	case has(deviceshare.ErrDesignatedAllocationLackNUMA):
		return "DesignatedDeviceWithoutNUMA"
	case has(nodenumaresource.ErrInvalidCPUAmplificationRatio):
		return "InvalidAmplificationRatio"
	case has(nodenumaresource.ErrInsufficientAmplifiedCPU):
		return "InsufficientAmplifiedCPU"
	case has(nodenumaresource.ErrInvalidRequestedCPUs):
		return "InvalidRequestedCPUs"
	case has(nodenumaresource.ErrInvalidCPUTopology):
		return "InvalidCPUTopology"
	case has(nodenumaresource.ErrCPUBindPolicyConflict):
		return "CPUBindPolicyConflict"
	case has(nodenumaresource.ErrSMTAlignmentError):
		return "SMTAlignmentError"
	case has("missing NUMA resources"):
		return "MissingNUMAResources"
	case has("Unsatisfied NUMA"):
		return "UnsatisfiedNUMAResource"
	case has("Unaligned NUMA Hint"):
		return "UnalignedNUMAHint"
	case has(deviceshare.ErrInsufficientNUMAScopedDevices):
		// DeviceShare's hints: fewer devices of a type than wanted, even on all NUMA nodes.
		return "InsufficientDevices"
	case has("Insufficient NUMA"), has("insufficient resources on NUMA Node"):
		return "InsufficientNUMAResources"
	case has(nodenumaresource.ErrNotEnoughCPUs), has("cpus"), has("CPUs"):
		return "InsufficientCPUs"
	case has("VirtualFunctions"):
		return "InsufficientVirtualFunctions"
	case has("Topology Scoped"):
		return "InsufficientTopologyScopedDevices"
	case has("Joint-Allocate"):
		return "JointAllocateViolation"
	case has("primary device"):
		// No allocator of the release returns what makes this message (an
		// empty primary allocation without a refusal); the contract has no
		// code for it, so the answer shows as a difference if it ever comes.
		return "InsufficientPrimaryDevice"
	case has("missing GPU Partition Table"):
		return "MissingGPUPartitionTable"
	case has("Unsupported number of GPU requests"):
		return "UnsupportedGPUPartitionCount"
	case has("Partitioned GPU"):
		return "InsufficientPartitionedGPUs"
	case has("gpu partitions"), has("GPUPartitionTable"):
		return "InvalidGPUPartitionTable"
	case has("Insufficient"), has("devices"), has("Devices"):
		return "InsufficientDevices"
	}
	return "Unschedulable"
}

// ---------------------------------------------------------------- rendering

func bitsOf(h topologymanager.NUMATopologyHint) any {
	if h.NUMANodeAffinity == nil {
		return nil
	}
	bits := h.NUMANodeAffinity.GetBits()
	sort.Ints(bits)
	return bits
}

func hintJSONOut(h topologymanager.NUMATopologyHint) map[string]any {
	return map[string]any{"affinity": bitsOf(h), "preferred": h.Preferred, "score": h.Score, "unsatisfied": h.Unsatisfied}
}

func hintsOut(hints map[string][]topologymanager.NUMATopologyHint) map[string]any {
	out := map[string]any{}
	for resource, list := range hints {
		if list == nil {
			out[resource] = nil
			continue
		}
		items := make([]any, 0, len(list))
		for _, h := range list {
			items = append(items, hintJSONOut(h))
		}
		out[resource] = items
	}
	return out
}

func resourcesOut(list corev1.ResourceList) map[string]any {
	out := map[string]any{}
	for name, q := range list {
		if name == corev1.ResourceCPU {
			out[string(name)] = q.MilliValue()
		} else {
			out[string(name)] = q.Value()
		}
	}
	return out
}

func devicePercent(kind string, res corev1.ResourceList) int64 {
	switch kind {
	case "gpu":
		if q, ok := res[apiext.ResourceGPUCore]; ok {
			return q.Value()
		}
		q := res[apiext.ResourceGPUMemoryRatio]
		return q.Value()
	case "rdma":
		q := res[apiext.ResourceRDMA]
		return q.Value()
	case "fpga":
		q := res[apiext.ResourceFPGA]
		return q.Value()
	}
	return 0
}

// numaAllocationOut writes what NodeNUMAResource allocated in the cycle (its
// CPU set and per-NUMA resources) into result; nothing when it allocated none.
func numaAllocationOut(state fwktype.CycleState, result map[string]any) {
	alloc := nodenumaresource.ConformanceAllocation(state)
	if alloc == nil {
		return
	}
	if !alloc.CPUSet.IsEmpty() {
		result["cpuset"], result["cpusetString"] = alloc.CPUSet.ToSlice(), alloc.CPUSet.String()
	}
	numa := map[string]any{}
	for _, r := range alloc.NUMANodeResources {
		numa[strconv.Itoa(r.Node)] = resourcesOut(r.Resources)
	}
	result["numaResources"] = numa
}

func devicesOut(allocations apiext.DeviceAllocations) map[string]any {
	out := map[string]any{}
	for kind, list := range allocations {
		items := make([]any, 0, len(list))
		for _, a := range list {
			item := map[string]any{"minor": a.Minor, "percent": devicePercent(string(kind), a.Resources)}
			if kind == "gpu" {
				// The release fills both memory sizes of a GPU allocation in
				// (fillGPUTotalMem), whichever the pod asked for.
				if q, found := a.Resources[apiext.ResourceGPUMemory]; found {
					item["gpuMemory"] = q.Value()
				}
			}
			if a.Extension != nil && len(a.Extension.VirtualFunctions) > 0 {
				item["vf"] = a.Extension.VirtualFunctions[0].BusID
			}
			items = append(items, item)
		}
		out[string(kind)] = items
	}
	return out
}

func statusOut(statuses []apiext.NumaNodeStatus) map[string]any {
	out := map[string]any{}
	for i, s := range statuses {
		out[strconv.Itoa(i)] = string(s)
	}
	return out
}

// ---------------------------------------------------------------- resolve

type resolution struct {
	fields map[string]any
}

// podBindPolicy is how PreFilter reads the resource-spec of a pod allowed to
// bind CPUs (nodenumaresource.AllowUseCPUSet): a non-empty required policy
// wins, Default meaning the plugin default; else the preferred one.
func podBindPolicy(pod *corev1.Pod, defaultPolicy string) (policy any, required bool) {
	if !nodenumaresource.AllowUseCPUSet(pod) {
		return nil, false
	}
	spec, err := apiext.GetResourceSpec(pod.Annotations)
	if err != nil {
		return nil, false
	}
	preferred := string(spec.PreferredCPUBindPolicy)
	if preferred == "" || preferred == string(apiext.CPUBindPolicyDefault) {
		preferred = defaultPolicy
	}
	req := string(spec.RequiredCPUBindPolicy)
	if req == string(apiext.CPUBindPolicyDefault) {
		req = defaultPolicy
	}
	if req != "" {
		return req, true
	}
	return preferred, false
}

func policyName(p apiext.NUMATopologyPolicy) string {
	if p == "" {
		return "None"
	}
	return string(p)
}

// resolveFields are the resolve result's policy fields for the pod on the
// node, from the release's PreFilter state and Filter helpers; a refusal
// at stage leaves what comes after it null.
func (c *cycle) resolveFields(n *builtNode, refusedAt string, reason string) map[string]any {
	pod := c.pod
	defaultPolicy := string(c.nnr.ConformanceDefaultCPUBindPolicy())
	out := map[string]any{
		"numaTopologyPolicy": nil, "policySource": nil, "singleNUMANodeExclusive": nil,
		"numaAllocateStrategy": nil, "strategySource": nil, "distributeEvenly": nil,
		"cpuBindPolicy": nil, "cpuBindRequired": nil, "requestCPUBind": nil, "cpuExclusivePolicy": nil,
		"deviceHints": nil, "jointAllocate": nil, "gpuPartitionSpec": nil,
	}
	if refusedAt == "PreFilter" && (reason == "InvalidResourceSpec" || reason == "InvalidNUMATopologySpec") {
		return out
	}
	spec, _ := apiext.GetResourceSpec(pod.Annotations)
	exclusive := string(spec.PreferredCPUExclusivePolicy)
	if exclusive == "" {
		exclusive = "None"
	}
	out["cpuExclusivePolicy"] = exclusive
	bind, required := podBindPolicy(pod, defaultPolicy)
	out["cpuBindPolicy"], out["cpuBindRequired"] = bind, required
	out["requestCPUBind"] = (bind == "FullPCPUs" || bind == "SpreadByPCPUs") && podMilliCPU(pod) > 0
	if refusedAt == "PreFilter" {
		// NodeNUMAResource's PreFilter read the binding policy; DeviceShare's
		// refused (or NodeNUMAResource's own request check did).
		return out
	}
	hints, _ := apiext.GetDeviceAllocateHints(pod.Annotations)
	deviceHints := map[string]any{}
	for kind, h := range hints {
		var m map[string]any
		_ = json.Unmarshal([]byte(mustJSON(h)), &m)
		if m == nil {
			m = map[string]any{}
		}
		deviceHints[string(kind)] = m
	}
	out["deviceHints"] = deviceHints
	if joint, _ := apiext.GetDeviceJointAllocate(pod.Annotations); joint != nil {
		types := []any{}
		for _, t := range joint.DeviceTypes {
			types = append(types, string(t))
		}
		out["jointAllocate"] = map[string]any{"deviceTypes": types, "requiredScope": string(joint.RequiredScope)}
	}
	if partition, _ := apiext.GetGPUPartitionSpec(pod.Annotations); partition != nil {
		var bandwidth any
		if partition.RingBusBandwidth != nil {
			bandwidth = partition.RingBusBandwidth.Value()
		}
		out["gpuPartitionSpec"] = map[string]any{"allocatePolicy": string(partition.AllocatePolicy), "ringBusBandwidth": bandwidth}
	}

	r := c.nnr.ConformanceResolve(c.state, n.node, pod)
	strategy := string(r.NUMAAllocateStrategy)
	out["numaAllocateStrategy"] = strategy
	if n.node.Labels[apiext.LabelNodeNUMAAllocateStrategy] != "" {
		out["strategySource"] = "node-label"
	} else {
		out["strategySource"] = "args"
	}
	if r.MergeError {
		out["numaTopologyPolicy"], out["policySource"] = policyName(r.PodPolicy), "pod"
		return out
	}
	out["numaTopologyPolicy"] = policyName(r.Policy)
	labelPolicy := apiext.GetNodeNUMATopologyPolicy(n.node.Labels)
	switch {
	case r.PodPolicy != "":
		out["policySource"] = "pod"
	case labelPolicy != "" && labelPolicy != apiext.NUMATopologyPolicyNone:
		out["policySource"] = "node-label"
	case r.KubeletPolicy != "" && r.KubeletPolicy != apiext.NUMATopologyPolicyNone:
		out["policySource"] = "kubelet"
	default:
		out["policySource"] = "default"
	}
	switch {
	case r.PodExclusive != "":
		out["singleNUMANodeExclusive"] = string(r.PodExclusive)
	case r.PodPolicy != "":
		out["singleNUMANodeExclusive"] = string(apiext.NumaTopologyExclusiveRequired)
	}
	out["distributeEvenly"] = false
	if reason == "CPUBindPolicyConflict" {
		return out
	}
	if r.RequestCPUBind || !r.RequestCPUBindStatus.IsSuccess() {
		// A node-forced binding (refused for a non-integer request or not) is the
		// node's policy, required.
		out["cpuBindPolicy"], out["cpuBindRequired"], out["requestCPUBind"] = string(r.CPUBindPolicy), r.CPUBindRequired, true
	}
	return out
}

func podMilliCPU(pod *corev1.Pod) int64 {
	var total int64
	for _, c := range pod.Spec.Containers {
		if q, ok := c.Resources.Requests[corev1.ResourceCPU]; ok {
			total += q.MilliValue()
		}
	}
	return total
}

// resolveReasons are the refusals resolve reports: PreFilter's and the
// policy and CPU request checks at the head of NodeNUMAResource's Filter.
var resolveReasons = map[string]bool{
	"ErrNotMatchNUMATopology": true, "InvalidRequestedCPUs": true, "CPUBindPolicyConflict": true, "SMTAlignmentError": true,
}

func runResolve(raw json.RawMessage) answer {
	return resolveCase(withoutNodeAmplification(raw), true)
}

// withoutNodeAmplification is the case without the Node's amplification
// ratio. resolve's checks leave the amplified CPU check out (the contract
// reports its refusals from filter only), but the release's Filter runs it
// before the CPU topology and bind-policy checks, so its refusal would hide
// theirs.
func withoutNodeAmplification(raw json.RawMessage) json.RawMessage {
	var in map[string]any
	if err := json.Unmarshal(raw, &in); err != nil {
		return raw
	}
	node, isMap := in["node"].(map[string]any)
	if !isMap {
		return raw
	}
	annotations, isMap := node["annotations"].(map[string]any)
	if !isMap {
		return raw
	}
	if _, found := annotations[apiext.AnnotationNodeResourceAmplificationRatio]; !found {
		return raw
	}
	delete(annotations, apiext.AnnotationNodeResourceAmplificationRatio)
	out, err := json.Marshal(in)
	if err != nil {
		return raw
	}
	return out
}

// withStandInTopology is the case with a node CPU topology of one socket, one
// NUMA node and one thread per core, a core per requested CPU. resolve's checks
// do not depend on the topology (the contract never reports InvalidCPUTopology
// from resolve and SMTAlignmentError only for a given topology), but the
// release's Filter refuses a missing topology before it looks for a bind-policy
// conflict; with this topology it reaches that check, and one thread per core
// keeps SMTAlignmentError out.
func withStandInTopology(raw json.RawMessage, milliCPU int64) (json.RawMessage, bool) {
	var in map[string]any
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, false
	}
	node, isMap := in["node"].(map[string]any)
	if !isMap {
		return nil, false
	}
	cores := (milliCPU + 999) / 1000
	if cores < 1 {
		cores = 1
	}
	node["cpuTopology"] = map[string]any{"sockets": 1, "numaNodesPerSocket": 1, "coresPerNUMANode": cores, "threadsPerCore": 1}
	out, err := json.Marshal(in)
	return out, err == nil
}

func resolveCase(raw json.RawMessage, mayStandIn bool) answer {
	in, nodes, pod, early := decodeCase(raw)
	if early != nil {
		return *early
	}
	c, err := newCycle(in.Args, nodes, pod)
	if err != nil {
		return unsupported("the release refuses these plugin arguments: %v", err)
	}
	ctx := context.Background()
	out := map[string]any{"accepted": true, "reason": nil, "message": nil}
	stage := ""
	if status := c.preFilter(ctx); status != nil {
		out["accepted"], out["reason"], out["message"] = false, reasonOf(pod, nodes[0], "PreFilter", status), status.Message()
		stage = "PreFilter"
	} else if status := c.nnr.Filter(ctx, c.state, pod, c.handle.lister.infos[nodes[0].name]); !status.IsSuccess() {
		reason := reasonOf(pod, nodes[0], "Filter", status)
		if reason == "InvalidCPUTopology" && mayStandIn && in.Node != nil && in.Node.CPUTopology == nil {
			if standIn, built := withStandInTopology(raw, podMilliCPU(pod)); built {
				return resolveCase(standIn, false)
			}
		}
		if resolveReasons[reason] {
			out["accepted"], out["reason"], out["message"] = false, reason, status.Message()
			stage = "Filter"
		}
	}
	reason, _ := out["reason"].(string)
	for k, v := range c.resolveFields(nodes[0], stage, reason) {
		out[k] = v
	}
	return ok(out)
}

// ---------------------------------------------------------------- filter

type filterOutcome struct {
	fits    bool
	reason  any
	message any
	stage   any
	code    any
	result  map[string]any
}

func (c *cycle) runFilter(ctx context.Context, n *builtNode) filterOutcome {
	o := filterOutcome{fits: true}
	// The statuses the merge sees: Reserve adds the pod's own allocation.
	statuses := c.nnr.ConformanceNUMANodeStatus(n.name)
	refuse := func(stage string, status *fwktype.Status) {
		o.fits, o.reason, o.message, o.stage = false, reasonOf(c.pod, n, stage, status), status.Message(), stage
		// The code the plugin itself returned: the framework decides from it
		// whether preemption may help on this node.
		o.code = status.Code().String()
	}
	if status := c.preFilter(ctx); status != nil {
		refuse("PreFilter", status)
	} else if status := c.filter(ctx, n.name); status != nil {
		refuse("Filter", status)
	} else if status := c.reserve(ctx, n.name); status != nil {
		refuse("Reserve", status)
	}
	stage := ""
	if s, isString := o.stage.(string); isString {
		stage = s
	}
	reason, _ := o.reason.(string)
	fields := c.resolveFields(n, stage, reason)
	policy := map[string]any{}
	for _, k := range []string{"numaTopologyPolicy", "singleNUMANodeExclusive", "numaAllocateStrategy", "distributeEvenly", "cpuBindPolicy", "cpuBindRequired", "cpuExclusivePolicy"} {
		policy[k] = fields[k]
	}
	result := map[string]any{
		"fits": o.fits, "reason": o.reason, "message": o.message, "stage": o.stage, "code": o.code,
		"policy":         policy,
		"numaNodeStatus": statusOut(statuses),
		"hints":          hintsOut(c.hints(n.name)),
		"hint":           nil,
		"cpuset":         nil,
		"cpusetString":   nil,
		"numaResources":  map[string]any{},
		"devices":        map[string]any{},
	}
	if o.reason == "UnalignedNUMAHint" && fields["singleNUMANodeExclusive"] == string(apiext.NumaTopologyExclusiveRequired) {
		// The same merge without the exclusive check, on the same hints.
		if policy, err := policyFor(fields["numaTopologyPolicy"].(string), n.numaIDs); err == nil && policy != nil {
			if _, admit, _ := policy.Merge(c.providerHints(n.name), "", statuses); admit {
				o.reason = "SingleNUMANodeExclusiveConflict"
				result["reason"] = o.reason
			}
		}
	}
	if h, found := c.merged(n.name); found {
		result["hint"] = hintJSONOut(h)
	} else if providerHints := c.providerHints(n.name); len(providerHints) > 0 {
		// The Topology Manager keeps its merged hint only when the pod is admitted
		// and allocated on it; otherwise the same Merge on the same hints gives it.
		exclusive, _ := fields["singleNUMANodeExclusive"].(string)
		if policy, err := policyFor(fields["numaTopologyPolicy"].(string), n.numaIDs); err == nil && policy != nil {
			h, _, _ := policy.Merge(providerHints, apiext.NumaTopologyExclusive(exclusive), statuses)
			result["hint"] = hintJSONOut(h)
		}
	}
	if o.fits {
		numaAllocationOut(c.state, result)
		result["devices"] = devicesOut(deviceshare.ConformanceAllocation(c.state))
	}
	o.result = result
	return o
}

func runFilter(raw json.RawMessage) answer { return repeatedWhenDeviceOrderMatters(raw, runFilterOnce) }

func runFilterOnce(raw json.RawMessage) answer {
	in, nodes, pod, early := decodeCase(raw)
	if early != nil {
		return *early
	}
	c, err := newCycle(in.Args, nodes, pod)
	if err != nil {
		return unsupported("the release refuses these plugin arguments: %v", err)
	}
	var outcome filterOutcome
	protocol.Timed("filter", func() { outcome = c.runFilter(context.Background(), nodes[0]) })
	return ok(outcome.result)
}

// ---------------------------------------------------------------- score

func runScore(raw json.RawMessage) answer { return repeatedWhenDeviceOrderMatters(raw, runScoreOnce) }

func runScoreOnce(raw json.RawMessage) answer {
	in, nodes, pod, early := decodeCase(raw)
	if early != nil {
		return *early
	}
	if len(in.Nodes) == 0 {
		return failure("InvalidInput", fmt.Errorf("nodes: expected a non-empty list of nodes"))
	}
	c, err := newCycle(in.Args, nodes, pod)
	if err != nil {
		return unsupported("the release refuses these plugin arguments: %v", err)
	}
	ctx := context.Background()
	rows := make([]map[string]any, 0, len(nodes))
	fits := make([]bool, len(nodes))
	preStatus := c.preFilter(ctx)
	for i, n := range nodes {
		row := map[string]any{"name": n.name, "fits": true, "reason": nil, "score": int64(0), "numaScores": map[string]any{}, "deviceScore": int64(0)}
		var status *fwktype.Status
		stage := "Filter"
		if preStatus != nil {
			status, stage = preStatus, "PreFilter"
		} else {
			status = c.filter(ctx, n.name)
		}
		if status != nil && stage == "PreFilter" {
			row["fits"], row["reason"] = false, reasonOf(pod, n, stage, status)
		} else {
			// Whether the pod fits, and why not, is the whole cycle on this node
			// alone, Reserve included: the reason exactly as filter answers it.
			alone, err := newCycle(in.Args, []*builtNode{n}, pod)
			if err != nil {
				return unsupported("the release refuses these plugin arguments: %v", err)
			}
			if o := alone.runFilter(ctx, n); !o.fits {
				row["fits"], row["reason"] = false, o.reason
			} else if status != nil {
				row["fits"], row["reason"] = false, reasonOf(pod, n, stage, status)
			} else {
				fits[i] = true
			}
		}
		rows = append(rows, row)
	}
	if preStatus == nil {
		for i, n := range nodes {
			if !fits[i] {
				continue
			}
			info := c.handle.lister.infos[n.name]
			if s := c.nnr.PreScore(ctx, c.state, pod, nil); s.IsSuccess() {
				score, status := c.nnr.Score(ctx, c.state, pod, info)
				if status.IsSuccess() {
					rows[i]["score"] = score
				}
			}
			if scores, err := c.nnr.ConformanceNUMAScores(c.state, n.node); err == nil {
				m := map[string]any{}
				for k, v := range scores {
					m[k] = v
				}
				rows[i]["numaScores"] = m
			}
			if s := c.ds.PreScore(ctx, c.state, pod, nil); s.IsSuccess() {
				score, status := c.ds.Score(ctx, c.state, pod, info)
				if status.IsSuccess() {
					rows[i]["deviceScore"] = score
				}
			}
		}
	}
	var top int64
	for i, r := range rows {
		if fits[i] && r["deviceScore"].(int64) > top {
			top = r["deviceScore"].(int64)
		}
	}
	var best any
	var bestTotal int64 = -1
	out := make([]any, 0, len(rows))
	for i, r := range rows {
		normalized := int64(0)
		if fits[i] && top > 0 {
			normalized = r["deviceScore"].(int64) * 100 / top
		}
		r["normalizedDeviceScore"] = normalized
		total := r["score"].(int64) + normalized
		r["total"] = total
		if fits[i] && total > bestTotal {
			best, bestTotal = r["name"], total
		}
		out = append(out, r)
	}
	return ok(map[string]any{"nodes": out, "best": best})
}
