package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-base/metrics/testutil"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"
	kubeletmetrics "k8s.io/kubernetes/pkg/kubelet/metrics"
	"k8s.io/utils/cpuset"

	"topoconf/shims/protocol"
)

// resourceSpec is a container's or a pod's requests and limits as the case
// writes them (quantities still undecoded).
type resourceSpec struct {
	Requests map[string]json.RawMessage `json:"requests"`
	Limits   map[string]json.RawMessage `json:"limits"`
}

type containerSpec struct {
	Name          string       `json:"name"`
	Resources     resourceSpec `json:"resources"`
	RestartPolicy string       `json:"restartPolicy"`
}

type podSpec struct {
	Name string `json:"name"`
	// Resources are the pod-level resources (spec.resources).
	Resources      *resourceSpec   `json:"resources"`
	InitContainers []containerSpec `json:"initContainers"`
	Containers     []containerSpec `json:"containers"`
}

type eventSpec struct {
	Admit   *podSpec `json:"admit"`
	Remove  *string  `json:"remove"`
	Restart bool     `json:"restart"`
}

type admitInput struct {
	commonInput
	KubeletConfiguration tmConfig        `json:"kubeletConfiguration"`
	Node                 json.RawMessage `json:"node"`
	Events               []eventSpec     `json:"events"`
}

func resourceList(in map[string]json.RawMessage) (v1.ResourceList, error) {
	if in == nil {
		return nil, nil
	}
	out := v1.ResourceList{}
	for name, raw := range in {
		q, err := quantity(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		// A kubelet reads pods the API server has stored, with every
		// quantity in its canonical form ("1.5Gi" comes back as "1536Mi"),
		// and the memory manager's AsInt64 depends on the form.
		if q, err = resource.ParseQuantity(q.String()); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[v1.ResourceName(name)] = q
	}
	return out, nil
}

func buildContainer(c containerSpec) (v1.Container, error) {
	req, err := resourceList(c.Resources.Requests)
	if err != nil {
		return v1.Container{}, fmt.Errorf("container %s requests: %w", c.Name, err)
	}
	lim, err := resourceList(c.Resources.Limits)
	if err != nil {
		return v1.Container{}, fmt.Errorf("container %s limits: %w", c.Name, err)
	}
	out := v1.Container{Name: c.Name, Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}
	if c.RestartPolicy != "" {
		p := v1.ContainerRestartPolicy(c.RestartPolicy)
		out.RestartPolicy = &p
	}
	return out, nil
}

func buildPod(p *podSpec, uid string) (*v1.Pod, error) {
	pod := &v1.Pod{}
	pod.Name = p.Name
	pod.Namespace = "default"
	pod.UID = types.UID(uid)
	if p.Resources != nil {
		req, err := resourceList(p.Resources.Requests)
		if err != nil {
			return nil, fmt.Errorf("pod %s resources requests: %w", p.Name, err)
		}
		lim, err := resourceList(p.Resources.Limits)
		if err != nil {
			return nil, fmt.Errorf("pod %s resources limits: %w", p.Name, err)
		}
		pod.Spec.Resources = &v1.ResourceRequirements{Requests: req, Limits: lim}
	}
	for _, c := range p.InitContainers {
		bc, err := buildContainer(c)
		if err != nil {
			return nil, err
		}
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, bc)
	}
	for _, c := range p.Containers {
		bc, err := buildContainer(c)
		if err != nil {
			return nil, err
		}
		pod.Spec.Containers = append(pod.Spec.Containers, bc)
	}
	return pod, nil
}

// affinityStore is the topologymanager.Store the managers are built with: the
// Topology Manager itself, except for the baseline pods of node.allocated,
// whose single-NUMA affinity is pinned so the real managers allocate them
// where the case says.
type affinityStore struct {
	tm     topologymanager.Manager
	mu     sync.Mutex
	pinned map[string]topologymanager.TopologyHint
}

// affinity is GetAffinity for every release (admit_api_v1_*.go give it the
// release's signature).
func (s *affinityStore) affinity(logger klog.Logger, podUID, containerName string) topologymanager.TopologyHint {
	s.mu.Lock()
	h, ok := s.pinned[podUID]
	s.mu.Unlock()
	if ok {
		return h
	}
	return tmAffinity(s.tm, logger, podUID, containerName)
}
func (s *affinityStore) GetPolicy() topologymanager.Policy { return s.tm.GetPolicy() }

// observed wraps a hint provider without changing what it does: it records
// which containers reached allocation and, for the memory manager, what each
// allocation call took from each NUMA node.
type observed struct {
	inner   topologymanager.HintProvider
	onAlloc func(pod *v1.Pod, container *v1.Container, call func() error) error
	onPod   func(pod *v1.Pod, call func() error) error
}

// allocate and allocatePod are the observing part of Allocate and AllocatePod,
// whose signatures are the release's (admit_api_v1_*.go).
func (o *observed) allocate(p *v1.Pod, c *v1.Container, call func() error) error {
	if o.onAlloc == nil {
		return call()
	}
	return o.onAlloc(p, c, call)
}

func (o *observed) allocatePod(p *v1.Pod, call func() error) error {
	if o.onPod == nil {
		return call()
	}
	return o.onPod(p, call)
}

type stubStatus struct{}

func (stubStatus) GetPodStatus(types.UID) (v1.PodStatus, bool) { return v1.PodStatus{}, false }

type stubRuntime struct{}

func (stubRuntime) UpdateContainerResources(context.Context, string, *runtimeapi.ContainerResources) error {
	return nil
}

type readySources struct{}

func (readySources) AddSource(string) {}
func (readySources) AllReady() bool   { return true }

// memDiff is bytes taken per resource per NUMA node by one allocation call.
type memDiff map[v1.ResourceName]map[int]uint64

// node is one kubelet on one machine for the duration of a case.
type node struct {
	logger  klog.Logger
	ctx     context.Context
	machine *machine
	tm      topologymanager.Manager
	store   *affinityStore
	cpu     cpumanager.Manager
	mem     memorymanager.Manager
	dev     *devicemanager.ManagerImpl
	dir     string

	// what a restart starts the managers with again (restart.go)
	cfg       tmConfig
	cpuPolicy string
	memPolicy string
	reserved  cpuset.CPUSet
	// admission counts of the re-admissions at restarts, which the
	// contract's metrics leave out
	readmitRequests, readmitErrors float64

	mu       sync.Mutex
	active   []*v1.Pod
	reached  []string                  // containers that reached allocation in the current admission
	memTaken map[string]memDiff        // podUID/container -> bytes taken by that Allocate call
	given    map[string]map[string]any // podUID/container -> its entry right after its allocation
}

func (n *node) activePods() []*v1.Pod {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*v1.Pod{}, n.active...)
}

func (n *node) dropActive(uid types.UID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	kept := n.active[:0]
	for _, p := range n.active {
		if p.UID != uid {
			kept = append(kept, p)
		}
	}
	n.active = kept
}

func (n *node) memReserved() map[v1.ResourceName]map[int]uint64 {
	out := map[v1.ResourceName]map[int]uint64{}
	st := n.mem.State()
	if st == nil {
		return out
	}
	for id, ns := range st.GetMachineState() {
		for res, table := range ns.MemoryMap {
			if out[res] == nil {
				out[res] = map[int]uint64{}
			}
			out[res][id] = table.Reserved
		}
	}
	return out
}

func diffReserved(before, after map[v1.ResourceName]map[int]uint64) memDiff {
	d := memDiff{}
	for res, nodes := range after {
		for id, v := range nodes {
			if b := before[res][id]; v > b {
				if d[res] == nil {
					d[res] = map[int]uint64{}
				}
				d[res][id] = v - b
			}
		}
	}
	return d
}

func newNode(in admitInput, spec *nodeSpec) (*node, *refusal, *answer) {
	cfg := in.KubeletConfiguration
	cpuPolicy := cfg.CPUManagerPolicy
	if cpuPolicy == "" {
		cpuPolicy = "static"
	}
	memPolicy := cfg.MemoryManagerPolicy
	if memPolicy == "" {
		memPolicy = "Static"
	}
	reserved := cpuset.New()
	if cfg.ReservedSystemCPUs != "" {
		var err error
		if reserved, err = cpuset.Parse(cfg.ReservedSystemCPUs); err != nil {
			a := failure("reservedSystemCPUs is not a cpuset", err)
			return nil, nil, &a
		}
	}
	addHidden := cpuPolicy == "static" && reserved.Size() == 0
	if addHidden && alignBySocketOn(cfg.CPUManagerPolicyOptions, in.FeatureGates) {
		a := unsupported("%s", "align-by-socket without reservedSystemCPUs: the shim's hidden socket of reserved CPUs would change the NUMA nodes per socket")
		return nil, nil, &a
	}
	m, err := buildMachine(spec, addHidden, memPolicy == "Static")
	if err != nil {
		a := failure("invalid node", err)
		return nil, nil, &a
	}
	if addHidden {
		reserved = cpuset.New(m.hiddenCPUs...)
	}

	sm, r, a := startTopologyManager(in.commonInput, cfg, m.info.Topology)
	if a != nil || r != nil {
		return nil, r, a
	}
	n := &node{logger: klog.Background(), machine: m, tm: sm.manager, memTaken: map[string]memDiff{}, given: map[string]map[string]any{}}
	n.ctx = klog.NewContext(context.Background(), n.logger)
	n.store = &affinityStore{tm: sm.manager, pinned: map[string]topologymanager.TopologyHint{}}

	dir, err := os.MkdirTemp("", "kubelet-shim-state-")
	if err != nil {
		a := failure("cannot create a state directory", err)
		return nil, nil, &a
	}
	n.dir = dir
	n.cfg, n.cpuPolicy, n.memPolicy, n.reserved = cfg, cpuPolicy, memPolicy, reserved
	if a := n.startManagers(spec, true); a != nil {
		return n, nil, a
	}
	return n, nil, nil
}

// startManagers creates, starts and registers the device, CPU and memory
// managers on the node's state directory: fresh for a new node, or (at a
// restart) reading the checkpoints the previous ones left.
func (n *node) startManagers(spec *nodeSpec, fresh bool) *answer {
	m, cfg, cpuPolicy, memPolicy, reserved, dir := n.machine, n.cfg, n.cpuPolicy, n.memPolicy, n.reserved, n.dir
	// Device manager: its checkpoint and registration socket live in the
	// kubelet's fixed device-plugins directory, which is private to this
	// process (see sandbox.go) and emptied for every case.
	if fresh {
		if err := resetDevicePluginDir(); err != nil {
			a := unsupported("the device manager needs a private %s: %v", devicePluginDir, err)
			return &a
		}
	}
	dev, err := newDeviceManager(n.ctx, m.info.Topology, n.store)
	if err != nil {
		a := failure("devicemanager.NewManagerImpl", err)
		return &a
	}
	if err := startDeviceManager(n.ctx, dev, n.activePods); err != nil {
		a := failure("device manager Start", err)
		return &a
	}
	n.dev = dev
	if err := registerDevices(n.ctx, dev, spec); err != nil {
		a := failure("registering devices", err)
		return &a
	}

	// CPU manager.
	cpuReservation := v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(int64(reserved.Size()), resource.DecimalSI)}
	cpu, err := newCPUManager(n.ctx, cpuPolicy, cfg.CPUManagerPolicyOptions, m.cpuInfo, reserved, cpuReservation, dir, n.store)
	if err != nil {
		if code := cpuOptionRefusal(err); code != "" {
			// the kubelet does not start with these cpuManagerPolicyOptions
			a := ok(refusedStart(&refusal{Reason: code, Message: err.Error()}))
			return &a
		}
		a := failure("cpumanager.NewManager refused the configuration", err)
		return &a
	}
	if err := startCPUManager(n.ctx, cpu, n.activePods); err != nil {
		a := failure("cpu manager Start", err)
		return &a
	}
	n.cpu = cpu

	// Memory manager.
	memReservation := v1.ResourceList{}
	var reservedMemory []kubeletconfig.MemoryReservation
	if memPolicy == "Static" {
		q := *resource.NewQuantity(hiddenReservedMemory, resource.BinarySI)
		memReservation[v1.ResourceMemory] = q
		reservedMemory = []kubeletconfig.MemoryReservation{{NumaNode: int32(spec.NUMANodes[0].ID), Limits: v1.ResourceList{v1.ResourceMemory: q}}}
	}
	mem, err := newMemoryManager(n.ctx, memPolicy, m.info, memReservation, reservedMemory, dir, n.store)
	if err != nil {
		a := failure("memorymanager.NewManager refused the configuration", err)
		return &a
	}
	if err := mem.Start(n.ctx, n.activePods, readySources{}, stubStatus{}, stubRuntime{}, containermap.NewContainerMap()); err != nil {
		a := failure("memory manager Start", err)
		return &a
	}
	n.mem = mem

	// Linux registration order: device manager, CPU manager, memory manager.
	tmAddHintProvider(n.ctx, n.tm, &observed{inner: dev, onAlloc: func(p *v1.Pod, c *v1.Container, call func() error) error {
		n.reached = append(n.reached, c.Name)
		return call()
	}, onPod: func(p *v1.Pod, call func() error) error {
		// the pod-level path (AllocatePod) asks every provider once for the
		// whole pod: every container has its hint by then
		for _, c := range append(append([]v1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
			n.reached = append(n.reached, c.Name)
		}
		return call()
	}})
	tmAddHintProvider(n.ctx, n.tm, &observed{inner: cpu})
	tmAddHintProvider(n.ctx, n.tm, &observed{inner: mem,
		onAlloc: func(p *v1.Pod, c *v1.Container, call func() error) error {
			before := n.memReserved()
			err := call()
			key := string(p.UID) + "/" + c.Name
			n.memTaken[key] = diffReserved(before, n.memReserved())
			// The memory manager is the last provider: this is what the
			// container was given. Later containers can change the state
			// behind it (an app container reusing an init container's
			// memory shrinks the init container's block), so it is kept now.
			n.given[key] = n.containerResult(p, c)
			return err
		}})
	return nil
}

func (n *node) close() {
	if n.dev != nil {
		_ = stopDeviceManager(n.ctx, n.dev)
	}
	if n.dir != "" {
		os.RemoveAll(n.dir)
	}
}

// baseline allocates node.allocated through the real managers, each entry a
// Guaranteed pod pinned to its NUMA node, and keeps those pods active.
func (n *node) baseline(spec *nodeSpec) error {
	for i, a := range spec.Allocated {
		uid := fmt.Sprintf("baseline-%d", i)
		c := v1.Container{Name: "baseline"}
		req := v1.ResourceList{}
		if a.CPUCount > 0 {
			req[v1.ResourceCPU] = *resource.NewQuantity(int64(a.CPUCount), resource.DecimalSI)
		} else {
			req[v1.ResourceCPU] = resource.MustParse("100m")
		}
		if a.Memory > 0 {
			req[v1.ResourceMemory] = *resource.NewQuantity(a.Memory, resource.BinarySI)
		} else {
			req[v1.ResourceMemory] = resource.MustParse("1Mi")
		}
		for k, b := range a.HugePages {
			req[v1.ResourceName(k)] = *resource.NewQuantity(b, resource.BinarySI)
		}
		for k, cnt := range a.Devices {
			req[v1.ResourceName(k)] = *resource.NewQuantity(int64(cnt), resource.DecimalSI)
		}
		c.Resources.Requests = req
		c.Resources.Limits = req.DeepCopy()
		pod := &v1.Pod{}
		pod.Name, pod.Namespace, pod.UID = uid, "default", types.UID(uid)
		pod.Spec.Containers = []v1.Container{c}
		mask, err := bitmask.NewBitMask(a.NUMA)
		if err != nil {
			return err
		}
		n.store.mu.Lock()
		n.store.pinned[uid] = topologymanager.TopologyHint{NUMANodeAffinity: mask, Preferred: true}
		n.store.mu.Unlock()
		n.mu.Lock()
		n.active = append(n.active, pod)
		n.mu.Unlock()
		if len(a.Devices) > 0 {
			if err := allocateFor(n.ctx, n.dev, pod, &pod.Spec.Containers[0]); err != nil {
				return fmt.Errorf("allocated[%d] devices: %w", i, err)
			}
		}
		if a.CPUCount > 0 {
			if err := allocateFor(n.ctx, n.cpu, pod, &pod.Spec.Containers[0]); err != nil {
				return fmt.Errorf("allocated[%d] cpus: %w", i, err)
			}
			if a.CPUIDs != nil {
				got := n.cpu.GetExclusiveCPUs(uid, "baseline")
				if !got.Equals(cpuset.New(a.CPUIDs...)) {
					fmt.Fprintf(os.Stderr, "kubelet-shim: allocated[%d] asked for cpus %v, the CPU manager chose %s\n", i, a.CPUIDs, got)
				}
			}
		}
		if a.Memory > 0 || len(a.HugePages) > 0 {
			if err := allocateFor(n.ctx, n.mem, pod, &pod.Spec.Containers[0]); err != nil {
				return fmt.Errorf("allocated[%d] memory: %w", i, err)
			}
		}
		id := uid + "/baseline"
		cpuAddContainer(n.ctx, n.cpu, pod, &pod.Spec.Containers[0], id)
		memAddContainer(n.ctx, n.mem, pod, &pod.Spec.Containers[0], id)
	}
	return nil
}

// reclaim runs the managers' stale-state cleanup, which the kubelet reaches
// on the next admission: resources of containers that are not active are
// released.
func (n *node) reclaim() {
	probe := &v1.Pod{}
	probe.Name, probe.Namespace, probe.UID = "probe", "default", "probe"
	probe.Spec.Containers = []v1.Container{{Name: "probe"}}
	hintsFor(n.ctx, n.cpu, probe, &probe.Spec.Containers[0])
	hintsFor(n.ctx, n.mem, probe, &probe.Spec.Containers[0])
	updateAllocatedDevices(n.ctx, n.dev)
}

func nodeKey(id int) string { return strconv.Itoa(id) }

func (n *node) containerResult(pod *v1.Pod, c *v1.Container) map[string]any {
	uid := string(pod.UID)
	out := map[string]any{"name": c.Name}
	h := tmAffinity(n.tm, n.logger, uid, c.Name)
	out["affinity"] = maskToJSON(h.NUMANodeAffinity)
	out["preferred"] = h.Preferred

	cpus := map[string]int{}
	ids := []int{}
	set := n.cpu.GetExclusiveCPUs(uid, c.Name)
	for _, id := range set.List() {
		cpus[nodeKey(n.machine.cpuNUMA[id])]++
		ids = append(ids, id)
	}
	out["cpus"] = cpus
	out["cpuIDs"] = ids

	memory := map[string]int64{}
	huge := map[string]map[string]int64{}
	taken := n.memTaken[uid+"/"+c.Name]
	for _, b := range memoryBlocks(n.ctx, n.mem, uid, c.Name) {
		target := memory
		if b.Type != v1.ResourceMemory {
			key := string(b.Type)
			if huge[key] == nil {
				huge[key] = map[string]int64{}
			}
			target = huge[key]
		}
		for id, v := range splitBlock(b, taken[b.Type]) {
			target[nodeKey(id)] += v
		}
	}
	out["memory"] = memory
	for k, v := range huge {
		out[k] = v
	}

	devices := map[string]map[string]int{}
	for res, devs := range n.dev.GetDevices(uid, c.Name) {
		per := map[string]int{}
		for _, d := range devs {
			key := "-1"
			if d.Topology != nil && len(d.Topology.Nodes) > 0 {
				key = nodeKey(int(d.Topology.Nodes[0].ID))
			}
			per[key]++
		}
		devices[res] = per
	}
	out["devices"] = devices
	return out
}

// splitBlock spreads a memory block over its NUMA nodes. A single-node block
// is exact; a multi-node group records only its total, so the contract's
// rendering is used: the bytes this container's Allocate call newly reserved
// per node, and what it reused of an init container's memory (the rest of the
// block) on the group's first node.
func splitBlock(b memstate.Block, taken map[int]uint64) map[int]int64 {
	out := map[int]int64{}
	if len(b.NUMAAffinity) == 1 {
		out[b.NUMAAffinity[0]] = int64(b.Size)
		return out
	}
	if len(b.NUMAAffinity) == 0 {
		return out
	}
	sorted := append([]int{}, b.NUMAAffinity...)
	sort.Ints(sorted)
	var sum uint64
	for _, id := range sorted {
		sum += taken[id]
	}
	if sum > b.Size {
		// Not this block's own reservation: only the total is known.
		out[sorted[0]] = int64(b.Size)
		return out
	}
	for _, id := range sorted {
		if taken[id] > 0 {
			out[id] = int64(taken[id])
		}
	}
	if rest := b.Size - sum; rest > 0 {
		out[sorted[0]] += int64(rest)
	}
	return out
}

func (n *node) allocation(spec *nodeSpec) map[string]any {
	out := map[string]any{}
	cpuCount := map[int]int{}
	used := cpuset.New()
	for _, containers := range n.cpu.State().GetCPUAssignments() {
		for _, set := range containers {
			used = used.Union(set)
		}
	}
	for _, id := range used.List() {
		cpuCount[n.machine.cpuNUMA[id]]++
	}
	reservedMem := n.memReserved()

	devUsed := map[string]map[string]int{} // resource -> node key -> count
	seen := map[string]bool{}
	for _, pod := range n.activePods() {
		for _, c := range append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
			for res, devs := range n.dev.GetDevices(string(pod.UID), c.Name) {
				for id, d := range devs {
					if seen[res+"/"+id] {
						continue
					}
					seen[res+"/"+id] = true
					key := "-1"
					if d.Topology != nil && len(d.Topology.Nodes) > 0 {
						key = nodeKey(int(d.Topology.Nodes[0].ID))
					}
					if devUsed[res] == nil {
						devUsed[res] = map[string]int{}
					}
					devUsed[res][key]++
				}
			}
		}
	}
	for _, ns := range spec.NUMANodes {
		entry := map[string]any{
			"cpus":   cpuCount[ns.ID],
			"memory": int64(reservedMem[v1.ResourceMemory][ns.ID]),
		}
		for k := range ns.HugePages {
			entry[k] = int64(reservedMem[v1.ResourceName(k)][ns.ID])
		}
		devs := map[string]int{}
		for res, count := range ns.Devices {
			if count > 0 {
				devs[res] = devUsed[res][nodeKey(ns.ID)]
			}
		}
		entry["devices"] = devs
		out[nodeKey(ns.ID)] = entry
	}
	devs := map[string]int{}
	for res, count := range spec.DevicesWithoutTopology {
		if count > 0 {
			devs[res] = devUsed[res]["-1"]
		}
	}
	if len(devs) > 0 {
		out["-1"] = map[string]any{"devices": devs}
	}
	return out
}

func admissionCounters() (float64, float64) {
	req, _ := testutil.GetCounterMetricValue(kubeletmetrics.TopologyManagerAdmissionRequestsTotal)
	errs, _ := testutil.GetCounterMetricValue(kubeletmetrics.TopologyManagerAdmissionErrorsTotal)
	return req, errs
}

// deviceReuseRepeats is how often an admit is repeated when a container may
// take devices an init container of its pod left for reuse: the device
// manager takes reusable devices first in Go set order (devicesToAllocate,
// allocateRemainingFrom), so when a container needs fewer than are left,
// which ones it gets can differ from run to run.
const deviceReuseRepeats = 16

func runAdmit(raw json.RawMessage) answer {
	if !mayReuseDevices(raw) {
		return admitOnce(raw)
	}
	return protocol.Repeat(deviceReuseRepeats, func() answer { return admitOnce(raw) }, func(runs int, distinct []any) string {
		return fmt.Sprintf("not deterministic: the release gave %d different results for this input over %d runs (which reusable devices a container takes is Go set order)", len(distinct), runs)
	})
}

// mayReuseDevices says whether some pod has an init container with a device
// limit and a later container asking for the same resource. Only
// device-plugin resources (names with a domain) qualify; the CPU and memory
// managers reuse deterministically.
func mayReuseDevices(raw json.RawMessage) bool {
	var in admitInput
	if json.Unmarshal(raw, &in) != nil {
		return false
	}
	for _, ev := range in.Events {
		if ev.Admit == nil {
			continue
		}
		held := map[string]bool{}
		inits := len(ev.Admit.InitContainers)
		for i, c := range append(append([]containerSpec{}, ev.Admit.InitContainers...), ev.Admit.Containers...) {
			for name := range c.Resources.Limits {
				if held[name] {
					return true
				}
			}
			for name := range c.Resources.Limits {
				if i < inits && strings.Contains(name, "/") {
					held[name] = true
				}
			}
		}
	}
	return false
}

func admitOnce(raw json.RawMessage) answer {
	var in admitInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("the admit input does not match the contract", err)
	}
	spec, err := parseNode(in.Node)
	if err != nil {
		return failure("invalid node", err)
	}
	if len(spec.NUMANodes) == 0 {
		return failure("node.numaNodes is empty", nil)
	}
	n, r, a := newNode(in, spec)
	if n != nil {
		defer n.close()
	}
	if a != nil {
		return *a
	}
	if r != nil {
		return ok(refusedStart(r))
	}
	if err := n.baseline(spec); err != nil {
		return failure("cannot allocate node.allocated through the managers", err)
	}
	req0, err0 := admissionCounters()

	pods := []any{}
	byName := map[string]*v1.Pod{}
	rejected := map[string]bool{}
	for i, ev := range in.Events {
		switch {
		case ev.Admit != nil:
			pod, err := buildPod(ev.Admit, fmt.Sprintf("uid-%d-%s", i, ev.Admit.Name))
			if err != nil {
				return failure(fmt.Sprintf("event %d", i), err)
			}
			n.reached = nil
			others := n.activePods()
			// The kubelet adds a pod to its pod manager before admitting it,
			// so the pod is among the active pods while the managers allocate
			// (their stale-state cleanup would otherwise reclaim the pod's
			// earlier containers); a rejected pod is terminal and leaves it.
			n.mu.Lock()
			n.active = append(n.active, pod)
			n.mu.Unlock()
			res := tmAdmit(n.ctx, n.tm, pod, others)
			entry := map[string]any{"name": pod.Name, "admitted": res.Admit, "reason": nil, "message": nil}
			if !res.Admit {
				entry["reason"] = res.Reason
				entry["message"] = res.Message
			}
			reached := sets.New[string](n.reached...)
			containers := []any{}
			all := append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
			for ci := range all {
				if !reached.Has(all[ci].Name) {
					continue
				}
				if g, ok := n.given[string(pod.UID)+"/"+all[ci].Name]; ok {
					containers = append(containers, g)
				} else {
					containers = append(containers, n.containerResult(pod, &all[ci]))
				}
			}
			entry["containers"] = containers
			pods = append(pods, entry)
			if res.Admit {
				byName[pod.Name] = pod
				delete(rejected, pod.Name)
				for ci := range all {
					id := string(pod.UID) + "/" + all[ci].Name
					tmAddContainer(n.ctx, n.tm, pod, &all[ci], id)
					cpuAddContainer(n.ctx, n.cpu, pod, &all[ci], id)
					memAddContainer(n.ctx, n.mem, pod, &all[ci], id)
				}
			} else {
				rejected[pod.Name] = true
				n.dropActive(pod.UID)
				n.reclaim()
			}
		case ev.Remove != nil:
			pod, ok := byName[*ev.Remove]
			if !ok && rejected[*ev.Remove] {
				// A rejected pod is terminal: deleting it releases nothing.
				continue
			}
			if !ok {
				return failure(fmt.Sprintf("event %d removes %q, which no earlier event admitted", i, *ev.Remove), nil)
			}
			delete(byName, *ev.Remove)
			n.dropActive(pod.UID)
			for _, c := range append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
				id := string(pod.UID) + "/" + c.Name
				_ = tmRemoveContainer(n.ctx, n.tm, id)
				_ = cpuRemoveContainer(n.ctx, n.cpu, id)
				_ = memRemoveContainer(n.ctx, n.mem, id)
			}
			updateAllocatedDevices(n.ctx, n.dev)
		case ev.Restart:
			if a := n.restart(in, spec); a != nil {
				return *a
			}
		default:
			return failure(fmt.Sprintf("event %d is neither admit, remove nor restart", i), nil)
		}
	}
	req1, err1 := admissionCounters()
	return ok(map[string]any{
		"started": true,
		"pods":    pods,
		"metrics": map[string]any{
			"admission_requests_total": int64(req1 - req0 - n.readmitRequests),
			"admission_errors_total":   int64(err1 - err0 - n.readmitErrors),
			// KEP-6007's two metrics do not exist in a release: no strategy
			// ever decides a selection and no per-NUMA gauge is exported, so
			// both have no series.
			"numa_score_selection_total": map[string]int{},
			"numa_container_count":       map[string]int{},
		},
		"allocation": n.allocation(spec),
	})
}
