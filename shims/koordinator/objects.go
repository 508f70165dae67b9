package main

// The contract's node, pod and args (docs/operations/koordinator.md) laid out
// as the Kubernetes and Koordinator objects the plugins read: the Node and its
// NodeInfo, the NodeResourceTopology, the Device CR, the placed pods with their
// resource-status and device-allocated annotations, and the plugin args
// through the release's v1 defaults and conversion.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	nrtv1alpha1 "github.com/k8stopologyawareschedwg/noderesourcetopology-api/pkg/apis/topology/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	apiext "github.com/koordinator-sh/koordinator/apis/extension"
	schedulingv1alpha1 "github.com/koordinator-sh/koordinator/apis/scheduling/v1alpha1"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config"
	v1 "github.com/koordinator-sh/koordinator/pkg/scheduler/apis/config/v1"
	"github.com/koordinator-sh/koordinator/pkg/util/cpuset"
	schedconfigv1 "k8s.io/kube-scheduler/config/v1"
)

// quantity reads a Kubernetes quantity written as a string or a number.
type quantity struct{ q resource.Quantity }

func (q *quantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var f json.Number
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("a quantity is a string or a number")
		}
		s = f.String()
	}
	parsed, err := resource.ParseQuantity(s)
	if err != nil {
		return fmt.Errorf("quantity %q: %w", s, err)
	}
	q.q = parsed
	return nil
}

type quantityMap map[string]quantity

func (m quantityMap) list() corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range m {
		out[corev1.ResourceName(k)] = v.q
	}
	return out
}

type numaZoneJSON struct {
	ID     *int                `json:"id"`
	Memory *quantity           `json:"memory"`
	CPU    *quantity           `json:"cpu"`
	Other  map[string]quantity `json:"-"`
}

func (z *numaZoneJSON) UnmarshalJSON(b []byte) error {
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	z.Other = map[string]quantity{}
	for k, v := range raw {
		switch k {
		case "id":
			var id int
			if err := json.Unmarshal(v, &id); err != nil {
				return fmt.Errorf("id: %w", err)
			}
			z.ID = &id
		case "memory":
			z.Memory = &quantity{}
			if err := json.Unmarshal(v, z.Memory); err != nil {
				return err
			}
		case "cpu":
			z.CPU = &quantity{}
			if err := json.Unmarshal(v, z.CPU); err != nil {
				return err
			}
		default:
			var q quantity
			if err := json.Unmarshal(v, &q); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			z.Other[k] = q
		}
	}
	return nil
}

type vfJSON struct {
	Minor *int   `json:"minor"`
	BusID string `json:"busID"`
}

type deviceJSON struct {
	Type     string            `json:"type"`
	Minor    int               `json:"minor"`
	NUMANode *int              `json:"numaNode"`
	PCIe     json.RawMessage   `json:"pcie"`
	BusID    string            `json:"busID"`
	Health   *bool             `json:"health"`
	Memory   *quantity         `json:"memory"`
	Labels   map[string]string `json:"labels"`
	VFGroups []struct {
		Labels map[string]string `json:"labels"`
		VFs    []vfJSON          `json:"vfs"`
	} `json:"vfGroups"`
}

type placedDeviceJSON struct {
	Minor   int    `json:"minor"`
	Percent *int64 `json:"percent"`
	VF      string `json:"vf"`
}

func (d *placedDeviceJSON) UnmarshalJSON(b []byte) error {
	var minor int
	if err := json.Unmarshal(b, &minor); err == nil {
		d.Minor = minor
		return nil
	}
	type plain placedDeviceJSON
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*d = placedDeviceJSON(p)
	return nil
}

type placedPodJSON struct {
	Name               string                        `json:"name"`
	CPUSet             json.RawMessage               `json:"cpuset"`
	CPUExclusivePolicy string                        `json:"cpuExclusivePolicy"`
	NUMAResources      map[string]quantityMap        `json:"numaResources"`
	Requests           quantityMap                   `json:"requests"`
	Devices            map[string][]placedDeviceJSON `json:"devices"`
}

type kubeletCPUManagerJSON struct {
	Policy  string            `json:"policy"`
	Options map[string]string `json:"options"`
}

type nodeJSON struct {
	Name                    string                 `json:"name"`
	Labels                  map[string]string      `json:"labels"`
	KubeletTopologyPolicy   *string                `json:"kubeletTopologyPolicy"`
	KubeletCPUManagerPolicy *kubeletCPUManagerJSON `json:"kubeletCPUManagerPolicy"`
	CPUTopology             *cpuTopologyJSON       `json:"cpuTopology"`
	ReservedCPUs            json.RawMessage        `json:"reservedCPUs"`
	NUMANodes               []numaZoneJSON         `json:"numaNodes"`
	Allocatable             quantityMap            `json:"allocatable"`
	Devices                 []deviceJSON           `json:"devices"`
	DeviceLabels            map[string]string      `json:"deviceLabels"`
	DeviceAnnotations       map[string]string      `json:"deviceAnnotations"`
	Annotations             map[string]string      `json:"annotations"`
	TopologyAnnotations     map[string]string      `json:"topologyAnnotations"`
	Pods                    []placedPodJSON        `json:"pods"`
}

type containerJSON struct {
	Name      string `json:"name"`
	Resources struct {
		Requests quantityMap `json:"requests"`
		Limits   quantityMap `json:"limits"`
	} `json:"resources"`
}

type podJSON struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	Priority    *int32            `json:"priority"`
	Containers  []containerJSON   `json:"containers"`
}

type scoringJSON struct {
	Type      string `json:"type"`
	Resources []struct {
		Name   string `json:"name"`
		Weight int64  `json:"weight"`
	} `json:"resources"`
}

type argsJSON struct {
	NodeNUMAResource *struct {
		DefaultCPUBindPolicy *string      `json:"defaultCPUBindPolicy"`
		NUMAAllocateStrategy *string      `json:"numaAllocateStrategy"`
		ScoringStrategy      *scoringJSON `json:"scoringStrategy"`
		NUMAScoringStrategy  *scoringJSON `json:"numaScoringStrategy"`
	} `json:"nodeNUMAResource"`
	DeviceShare *struct {
		DisableDeviceNUMATopologyAlignment bool         `json:"disableDeviceNUMATopologyAlignment"`
		ScoringStrategy                    *scoringJSON `json:"scoringStrategy"`
	} `json:"deviceShare"`
}

// ---------------------------------------------------------------- args

// toV1Scoring writes a contract scoring strategy as the release's. A
// strategy without resources weighs the contract's default resources
// (the release would weigh none).
func toV1Scoring(s *scoringJSON, defaults []schedconfigv1.ResourceSpec) *v1.ScoringStrategy {
	if s == nil {
		return nil
	}
	out := &v1.ScoringStrategy{Type: v1.ScoringStrategyType(s.Type)}
	for _, r := range s.Resources {
		out.Resources = append(out.Resources, v1ResourceSpec(r.Name, r.Weight))
	}
	if s.Resources == nil {
		out.Resources = append([]schedconfigv1.ResourceSpec(nil), defaults...)
	}
	return out
}

var (
	defaultNodeWeights   = []schedconfigv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}
	defaultDeviceWeights = []schedconfigv1.ResourceSpec{
		{Name: string(apiext.ResourceGPUMemoryRatio), Weight: 1}, {Name: string(apiext.ResourceRDMA), Weight: 1}, {Name: string(apiext.ResourceFPGA), Weight: 1},
	}
)

// pluginArgs runs the contract's args through the release's v1 defaults and
// conversion. The NUMA allocate strategy is no argument of the release: it
// follows the NUMA scoring strategy (GetDefaultNUMAAllocateStrategy).
func pluginArgs(in argsJSON) (*config.NodeNUMAResourceArgs, *config.DeviceShareArgs, error) {
	var numaV1 v1.NodeNUMAResourceArgs
	if n := in.NodeNUMAResource; n != nil {
		if n.DefaultCPUBindPolicy != nil {
			p := *n.DefaultCPUBindPolicy
			numaV1.DefaultCPUBindPolicy = &p
		}
		numaV1.ScoringStrategy = toV1Scoring(n.ScoringStrategy, defaultNodeWeights)
		nodeWeights := defaultNodeWeights
		if numaV1.ScoringStrategy != nil {
			nodeWeights = numaV1.ScoringStrategy.Resources
		}
		// numaScoringStrategy without resources weighs scoringStrategy's.
		numaV1.NUMAScoringStrategy = toV1Scoring(n.NUMAScoringStrategy, nodeWeights)
	}
	v1.SetDefaults_NodeNUMAResourceArgs(&numaV1)
	var numaArgs config.NodeNUMAResourceArgs
	if err := v1.Convert_v1_NodeNUMAResourceArgs_To_config_NodeNUMAResourceArgs(&numaV1, &numaArgs, nil); err != nil {
		return nil, nil, err
	}
	var shareV1 v1.DeviceShareArgs
	if d := in.DeviceShare; d != nil {
		shareV1.DisableDeviceNUMATopologyAlignment = d.DisableDeviceNUMATopologyAlignment
		shareV1.ScoringStrategy = toV1Scoring(d.ScoringStrategy, defaultDeviceWeights)
	}
	if shareV1.ScoringStrategy == nil {
		// The release's own default also weighs koordinator.sh/gpu-memory (bytes),
		// which the contract does not model: a GPU share asks for none of it, so
		// it would score as untouched. Absent args mean the contract's defaults.
		shareV1.ScoringStrategy = &v1.ScoringStrategy{Type: v1.LeastAllocated,
			Resources: append([]schedconfigv1.ResourceSpec(nil), defaultDeviceWeights...)}
	}
	v1.SetDefaults_DeviceShareArgs(&shareV1)
	var shareArgs config.DeviceShareArgs
	if err := v1.Convert_v1_DeviceShareArgs_To_config_DeviceShareArgs(&shareV1, &shareArgs, nil); err != nil {
		return nil, nil, err
	}
	return &numaArgs, &shareArgs, nil
}

// ---------------------------------------------------------------- nodes

var uidSeq int

func nextUID(prefix string) types.UID {
	uidSeq++
	return types.UID(fmt.Sprintf("%s-%d", prefix, uidSeq))
}

// builtNode is one contract node as the plugins see it.
type builtNode struct {
	name      string
	node      *corev1.Node
	nrt       *nrtv1alpha1.NodeResourceTopology // nil: the node reports none
	device    *schedulingv1alpha1.Device        // nil: no Device CR
	pods      []*corev1.Pod
	numaIDs   []int
	hasTopo   bool
	topoNodes map[int]int // NUMA node -> socket
}

// defaultGPUMemory is a GPU's memory when the contract's device gives none.
const defaultGPUMemory = 16 << 30

func cpuTopologyDetail(t cpuTopologyJSON) []apiext.CPUInfo {
	var out []apiext.CPUInfo
	if len(t.CPUs) > 0 {
		for _, c := range t.CPUs {
			out = append(out, apiext.CPUInfo{ID: int32(c.ID), Core: int32(c.Core), Socket: int32(c.Socket), Node: int32(c.Node)})
		}
		return out
	}
	for s := 0; s < t.Sockets; s++ {
		for n := 0; n < t.NUMANodesPerSocket; n++ {
			node := s*t.NUMANodesPerSocket + n
			for c := 0; c < t.CoresPerNUMANode; c++ {
				for th := 0; th < t.ThreadsPerCore; th++ {
					id := ((node*t.CoresPerNUMANode)+c)*t.ThreadsPerCore + th
					out = append(out, apiext.CPUInfo{ID: int32(id), Core: int32(id / t.ThreadsPerCore), Socket: int32(s), Node: int32(node)})
				}
			}
		}
	}
	return out
}

func normalizeCompact(t *cpuTopologyJSON) {
	if len(t.CPUs) > 0 {
		return
	}
	if t.Sockets == 0 {
		t.Sockets = 1
	}
	if t.NUMANodesPerSocket == 0 {
		t.NUMANodesPerSocket = 1
	}
	if t.ThreadsPerCore == 0 {
		t.ThreadsPerCore = 1
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func pcieID(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

func buildNode(in nodeJSON, where string) (*builtNode, error) {
	name := in.Name
	if name == "" {
		name = "node"
	}
	b := &builtNode{name: name, topoNodes: map[int]int{}}
	var detail []apiext.CPUInfo
	if in.CPUTopology != nil {
		normalizeCompact(in.CPUTopology)
		detail = cpuTopologyDetail(*in.CPUTopology)
		b.hasTopo = len(detail) > 0
	}
	cpuNode := map[int]int{}
	for _, c := range detail {
		cpuNode[int(c.ID)] = int(c.Node)
		b.topoNodes[int(c.Node)] = int(c.Socket)
	}
	reserved, err := parseCPUs(in.ReservedCPUs)
	if err != nil {
		return nil, fmt.Errorf("%s/reservedCPUs: %w", where, err)
	}

	labels := map[string]string{}
	for k, v := range in.Labels {
		labels[k] = v
	}
	// The Node's own annotations (the CPU amplification ratio is read from here).
	annotations := map[string]string{}
	for k, v := range in.Annotations {
		annotations[k] = v
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: nextUID("node"), Labels: labels, Annotations: annotations}}

	// NodeResourceTopology: zones, policies and the annotations koordlet writes.
	nrt := &nrtv1alpha1.NodeResourceTopology{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}}}
	if in.KubeletTopologyPolicy != nil {
		nrt.TopologyPolicies = []string{*in.KubeletTopologyPolicy}
	}
	if len(detail) > 0 {
		nrt.Annotations[apiext.AnnotationNodeCPUTopology] = mustJSON(apiext.CPUTopology{Detail: detail})
	}
	if in.KubeletCPUManagerPolicy != nil {
		nrt.Annotations[apiext.AnnotationKubeletCPUManagerPolicy] = mustJSON(apiext.KubeletCPUManagerPolicy{
			Policy: in.KubeletCPUManagerPolicy.Policy, Options: in.KubeletCPUManagerPolicy.Options})
	}
	if !reserved.IsEmpty() {
		nrt.Annotations[apiext.AnnotationNodeReservation] = mustJSON(apiext.NodeReservation{ReservedCPUs: reserved.String()})
	}
	// Of the NodeResourceTopology's own annotations the contract reads only the
	// amplification ratio; the others come from the typed fields above.
	if ratio, found := in.TopologyAnnotations[apiext.AnnotationNodeResourceAmplificationRatio]; found {
		nrt.Annotations[apiext.AnnotationNodeResourceAmplificationRatio] = ratio
	}
	totalCPU, totalMemory := int64(0), int64(0)
	seen := map[int]bool{}
	for i, z := range in.NUMANodes {
		if z.ID == nil || *z.ID < 0 || *z.ID > 63 {
			return nil, fmt.Errorf("%s/numaNodes/%d/id: expected a NUMA node id 0..63", where, i)
		}
		id := *z.ID
		if seen[id] {
			return nil, fmt.Errorf("%s/numaNodes/%d/id: duplicate NUMA node %d", where, i, id)
		}
		seen[id] = true
		b.numaIDs = append(b.numaIDs, id)
		inNode, reservedInNode := 0, 0
		for cpu, n := range cpuNode {
			if n == id {
				inNode++
				if reserved.Contains(cpu) {
					reservedInNode++
				}
			}
		}
		// The zone reports the NUMA node's CPUs; the release takes the reserved
		// ones off (NewTopologyOptions). An explicit cpu is the capacity left.
		cpuMilli := int64(inNode) * 1000
		if z.CPU != nil {
			cpuMilli = z.CPU.q.MilliValue()
			if cpuMilli > 0 || reservedInNode > 0 {
				cpuMilli += int64(reservedInNode) * 1000
			}
		}
		cpuQ := *resource.NewMilliQuantity(cpuMilli, resource.DecimalSI)
		zone := nrtv1alpha1.Zone{Name: fmt.Sprintf("node-%d", id), Type: "Node"}
		zone.Resources = append(zone.Resources, nrtv1alpha1.ResourceInfo{Name: "cpu", Capacity: cpuQ, Allocatable: cpuQ, Available: cpuQ})
		totalCPU += cpuMilli - int64(reservedInNode)*1000
		if z.Memory != nil {
			zone.Resources = append(zone.Resources, nrtv1alpha1.ResourceInfo{Name: "memory", Capacity: z.Memory.q, Allocatable: z.Memory.q, Available: z.Memory.q})
			totalMemory += z.Memory.q.Value()
		}
		others := make([]string, 0, len(z.Other))
		for k := range z.Other {
			others = append(others, k)
		}
		sort.Strings(others)
		for _, k := range others {
			q := z.Other[k].q
			zone.Resources = append(zone.Resources, nrtv1alpha1.ResourceInfo{Name: k, Capacity: q, Allocatable: q, Available: q})
		}
		nrt.Zones = append(nrt.Zones, zone)
	}
	sort.Ints(b.numaIDs)
	b.nrt = nrt

	// Node allocatable: as given, else the NUMA zones' sum.
	if in.Allocatable != nil {
		node.Status.Allocatable = in.Allocatable.list()
	} else {
		node.Status.Allocatable = corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(totalCPU, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(totalMemory, resource.BinarySI),
		}
	}
	node.Status.Allocatable[corev1.ResourcePods] = *resource.NewQuantity(110, resource.DecimalSI)
	node.Status.Capacity = node.Status.Allocatable.DeepCopy()

	// Device CR: koordlet reports one for every node, with the devices it found
	// (none here when the contract lists none).
	{
		device := &schedulingv1alpha1.Device{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: in.DeviceLabels, Annotations: in.DeviceAnnotations}}
		for i, d := range in.Devices {
			info, err := deviceInfo(d, b.topoNodes)
			if err != nil {
				return nil, fmt.Errorf("%s/devices/%d: %w", where, i, err)
			}
			device.Spec.Devices = append(device.Spec.Devices, info)
		}
		b.device = device
	}

	// Placed pods; a placed GPU share holds its percent of that GPU's memory.
	gpuMemory := map[int]int64{}
	for _, d := range in.Devices {
		if d.Type == "gpu" {
			gpuMemory[d.Minor] = gpuMemoryOf(d)
		}
	}
	for i, p := range in.Pods {
		pod, err := placedPod(p, i, name, cpuNode, b.hasTopo, gpuMemory)
		if err != nil {
			return nil, fmt.Errorf("%s/pods/%d: %w", where, i, err)
		}
		b.pods = append(b.pods, pod)
	}
	b.node = node
	return b, nil
}

// deviceResources is what percent of a device stands for; gpuMemory is the
// GPU's whole memory in bytes.
func deviceResources(kind string, percent, gpuMemory int64) corev1.ResourceList {
	switch kind {
	case "gpu":
		return corev1.ResourceList{
			apiext.ResourceGPUCore:        *resource.NewQuantity(percent, resource.DecimalSI),
			apiext.ResourceGPUMemoryRatio: *resource.NewQuantity(percent, resource.DecimalSI),
			apiext.ResourceGPUMemory:      *resource.NewQuantity(gpuMemory*percent/100, resource.BinarySI),
		}
	case "rdma":
		return corev1.ResourceList{apiext.ResourceRDMA: *resource.NewQuantity(percent, resource.DecimalSI)}
	case "fpga":
		return corev1.ResourceList{apiext.ResourceFPGA: *resource.NewQuantity(percent, resource.DecimalSI)}
	}
	return nil
}

func deviceInfo(d deviceJSON, socketOf map[int]int) (schedulingv1alpha1.DeviceInfo, error) {
	if d.Type != "gpu" && d.Type != "rdma" && d.Type != "fpga" {
		return schedulingv1alpha1.DeviceInfo{}, fmt.Errorf("unknown device type %q", d.Type)
	}
	minor := int32(d.Minor)
	healthy := d.Health == nil || *d.Health
	numa, socket := int32(-1), int32(-1)
	if d.NUMANode != nil && *d.NUMANode >= 0 {
		numa = int32(*d.NUMANode)
		socket = 0
		if s, ok := socketOf[*d.NUMANode]; ok {
			socket = int32(s)
		}
	}
	info := schedulingv1alpha1.DeviceInfo{
		Type:      schedulingv1alpha1.DeviceType(d.Type),
		Labels:    d.Labels,
		UUID:      fmt.Sprintf("%s-%d", d.Type, d.Minor),
		Minor:     &minor,
		Health:    healthy,
		Resources: deviceResources(d.Type, 100, gpuMemoryOf(d)),
		Topology:  &schedulingv1alpha1.DeviceTopology{SocketID: socket, NodeID: numa, PCIEID: pcieID(d.PCIe), BusID: d.BusID},
	}
	for _, g := range d.VFGroups {
		group := schedulingv1alpha1.VirtualFunctionGroup{Labels: g.Labels}
		for j, vf := range g.VFs {
			m := j
			if vf.Minor != nil {
				m = *vf.Minor
			}
			group.VFs = append(group.VFs, schedulingv1alpha1.VirtualFunction{Minor: int32(m), BusID: vf.BusID})
		}
		info.VFGroups = append(info.VFGroups, group)
	}
	return info, nil
}

func gpuMemoryOf(d deviceJSON) int64 {
	if d.Memory == nil {
		return defaultGPUMemory
	}
	return d.Memory.q.Value()
}

func placedPod(p placedPodJSON, i int, nodeName string, cpuNode map[int]int, hasTopo bool, gpuMemory map[int]int64) (*corev1.Pod, error) {
	name := p.Name
	if name == "" {
		name = fmt.Sprintf("pod-%d", i)
	}
	cpus, err := parseCPUs(p.CPUSet)
	if err != nil {
		return nil, fmt.Errorf("cpuset: %w", err)
	}
	if hasTopo {
		for _, c := range cpus.ToSlice() {
			if _, ok := cpuNode[c]; !ok {
				return nil, fmt.Errorf("cpuset: CPU %d is not in the topology", c)
			}
		}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: nextUID("placed"), Annotations: map[string]string{}},
		Spec:       corev1.PodSpec{NodeName: nodeName},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	status := apiext.ResourceStatus{CPUSet: cpus.String()}
	numa := map[int]corev1.ResourceList{}
	if p.NUMAResources != nil {
		for k, res := range p.NUMAResources {
			id, err := strconv.Atoi(k)
			if err != nil {
				return nil, fmt.Errorf("numaResources: bad NUMA id %q", k)
			}
			numa[id] = res.list()
		}
	} else if !cpus.IsEmpty() && hasTopo {
		// A pod placed with a CPU set holds its CPUs on their NUMA nodes.
		for _, c := range cpus.ToSlice() {
			n := cpuNode[c]
			if numa[n] == nil {
				numa[n] = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0")}
			}
			q := numa[n][corev1.ResourceCPU]
			q.Add(resource.MustParse("1"))
			numa[n][corev1.ResourceCPU] = q
		}
	}
	ids := make([]int, 0, len(numa))
	for id := range numa {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		status.NUMANodeResources = append(status.NUMANodeResources, apiext.NUMANodeResource{Node: int32(id), Resources: numa[id]})
	}
	if status.CPUSet != "" || len(status.NUMANodeResources) > 0 {
		if err := apiext.SetResourceStatus(pod, &status); err != nil {
			return nil, err
		}
	}
	if p.CPUExclusivePolicy != "" {
		pod.Annotations[apiext.AnnotationResourceSpec] = mustJSON(map[string]string{"preferredCPUExclusivePolicy": p.CPUExclusivePolicy})
	}
	// Node-level requests: as given, else what it holds.
	requests := corev1.ResourceList{}
	if p.Requests != nil {
		requests = p.Requests.list()
	} else if len(numa) > 0 {
		for _, res := range numa {
			for k, v := range res {
				q := requests[k]
				q.Add(v)
				requests[k] = q
			}
		}
	} else if !cpus.IsEmpty() {
		requests[corev1.ResourceCPU] = *resource.NewQuantity(int64(cpus.Size()), resource.DecimalSI)
	}
	pod.Spec.Containers = []corev1.Container{{Name: "main", Resources: corev1.ResourceRequirements{Requests: requests, Limits: requests}}}
	if len(p.Devices) > 0 {
		allocations := apiext.DeviceAllocations{}
		kinds := make([]string, 0, len(p.Devices))
		for k := range p.Devices {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, kind := range kinds {
			if kind != "gpu" && kind != "rdma" && kind != "fpga" {
				return nil, fmt.Errorf("devices: unknown device type %q", kind)
			}
			for _, d := range p.Devices[kind] {
				percent := int64(100)
				if d.Percent != nil {
					percent = *d.Percent
				}
				memory, listed := gpuMemory[d.Minor]
				if !listed {
					memory = defaultGPUMemory
				}
				a := &apiext.DeviceAllocation{Minor: int32(d.Minor), Resources: deviceResources(kind, percent, memory)}
				if d.VF != "" {
					a.Extension = &apiext.DeviceAllocationExtension{VirtualFunctions: []apiext.VirtualFunction{{BusID: d.VF}}}
				}
				allocations[schedulingv1alpha1.DeviceType(kind)] = append(allocations[schedulingv1alpha1.DeviceType(kind)], a)
			}
		}
		if err := apiext.SetDeviceAllocations(pod, allocations); err != nil {
			return nil, err
		}
	}
	return pod, nil
}

// ---------------------------------------------------------------- the pod

func buildPod(in podJSON) *corev1.Pod {
	name := in.Name
	if name == "" {
		name = "pod"
	}
	annotations := map[string]string{}
	for k, v := range in.Annotations {
		annotations[k] = v
	}
	labels := map[string]string{}
	for k, v := range in.Labels {
		labels[k] = v
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: nextUID("pod"), Labels: labels, Annotations: annotations},
		Spec:       corev1.PodSpec{Priority: in.Priority},
	}
	for i, c := range in.Containers {
		cname := c.Name
		if cname == "" {
			cname = fmt.Sprintf("c%d", i)
		}
		container := corev1.Container{Name: cname}
		if c.Resources.Requests != nil {
			container.Resources.Requests = c.Resources.Requests.list()
		}
		if c.Resources.Limits != nil {
			container.Resources.Limits = c.Resources.Limits.list()
		}
		pod.Spec.Containers = append(pod.Spec.Containers, container)
	}
	return pod
}

var _ = cpuset.NewCPUSet

func v1ResourceSpec(name string, weight int64) schedconfigv1.ResourceSpec {
	return schedconfigv1.ResourceSpec{Name: name, Weight: weight}
}
