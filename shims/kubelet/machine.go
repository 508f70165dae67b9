package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/cpuset"
	"topoconf/shims/kubelet/cadvisorapi"
)

// The node as the admit contract describes it.
type numaNodeSpec struct {
	ID        int
	Socket    int
	CPUs      []int // in the order written: a core's threads are consecutive
	Memory    int64
	HugePages map[string]int64 // "hugepages-1Gi" -> bytes
	Devices   map[string]int
}

type allocatedSpec struct {
	NUMA      int
	CPUCount  int
	CPUIDs    []int
	Memory    int64
	HugePages map[string]int64
	Devices   map[string]int
}

type nodeSpec struct {
	NUMANodes              []numaNodeSpec
	ThreadsPerCore         int
	Distances              [][]uint64
	DevicesWithoutTopology map[string]int
	Allocated              []allocatedSpec
}

// quantity reads a Kubernetes quantity written as a string or a number.
func quantity(raw json.RawMessage) (resource.Quantity, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var n json.Number
		if err2 := json.Unmarshal(raw, &n); err2 != nil {
			return resource.Quantity{}, fmt.Errorf("not a quantity: %s", raw)
		}
		s = n.String()
	}
	return resource.ParseQuantity(s)
}

func quantityBytes(raw json.RawMessage) (int64, error) {
	q, err := quantity(raw)
	if err != nil {
		return 0, err
	}
	return q.Value(), nil
}

// cpuField is a count (ids assigned later) or an explicit list of ids.
func cpuField(raw json.RawMessage) (count int, ids []int, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil, nil
	}
	if err = json.Unmarshal(raw, &count); err == nil {
		return count, nil, nil
	}
	if err = json.Unmarshal(raw, &ids); err == nil {
		return len(ids), ids, nil
	}
	var s string
	if err = json.Unmarshal(raw, &s); err == nil {
		set, perr := cpuset.Parse(s)
		if perr != nil {
			return 0, nil, perr
		}
		return set.Size(), set.List(), nil
	}
	return 0, nil, fmt.Errorf("cpus must be a count or a list of ids: %s", raw)
}

func parseNode(raw json.RawMessage) (*nodeSpec, error) {
	var top struct {
		NUMANodes              []map[string]json.RawMessage `json:"numaNodes"`
		Distances              [][]uint64                   `json:"distances"`
		DevicesWithoutTopology map[string]int               `json:"devicesWithoutTopology"`
		Allocated              []map[string]json.RawMessage `json:"allocated"`
		ThreadsPerCore         *int                         `json:"threadsPerCore"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	spec := &nodeSpec{Distances: top.Distances, DevicesWithoutTopology: top.DevicesWithoutTopology, ThreadsPerCore: 1}
	if top.ThreadsPerCore != nil {
		if *top.ThreadsPerCore < 1 {
			return nil, fmt.Errorf("threadsPerCore must be positive")
		}
		spec.ThreadsPerCore = *top.ThreadsPerCore
	}
	nextCPU := 0
	for i, n := range top.NUMANodes {
		ns := numaNodeSpec{Socket: i, HugePages: map[string]int64{}, Devices: map[string]int{}}
		if err := json.Unmarshal(n["id"], &ns.ID); err != nil {
			return nil, fmt.Errorf("numaNodes[%d].id: %w", i, err)
		}
		if raw, set := n["socket"]; set {
			if err := json.Unmarshal(raw, &ns.Socket); err != nil {
				return nil, fmt.Errorf("numaNodes[%d].socket: %w", i, err)
			}
		}
		count, ids, err := cpuField(n["cpus"])
		if err != nil {
			return nil, fmt.Errorf("numaNodes[%d].cpus: %w", i, err)
		}
		if ids == nil {
			for c := 0; c < count; c++ {
				ids = append(ids, nextCPU+c)
			}
		}
		for _, id := range ids {
			if id >= nextCPU {
				nextCPU = id + 1
			}
		}
		if len(ids)%spec.ThreadsPerCore != 0 {
			return nil, fmt.Errorf("numaNodes[%d].cpus: %d CPUs do not make whole cores of %d threads", i, len(ids), spec.ThreadsPerCore)
		}
		ns.CPUs = ids
		if err := readAmounts(fmt.Sprintf("numaNodes[%d]", i), n, &ns.Memory, ns.HugePages, &ns.Devices); err != nil {
			return nil, err
		}
		spec.NUMANodes = append(spec.NUMANodes, ns)
	}
	for i, a := range top.Allocated {
		as := allocatedSpec{HugePages: map[string]int64{}, Devices: map[string]int{}}
		if err := json.Unmarshal(a["numa"], &as.NUMA); err != nil {
			return nil, fmt.Errorf("allocated[%d].numa: %w", i, err)
		}
		var err error
		if as.CPUCount, as.CPUIDs, err = cpuField(a["cpus"]); err != nil {
			return nil, fmt.Errorf("allocated[%d].cpus: %w", i, err)
		}
		if err := readAmounts(fmt.Sprintf("allocated[%d]", i), a, &as.Memory, as.HugePages, &as.Devices); err != nil {
			return nil, err
		}
		spec.Allocated = append(spec.Allocated, as)
	}
	return spec, nil
}

// hiddenReservedMemory is the memory the shim adds to the first NUMA node's
// capacity and reserves there, because the memory manager's Static policy
// refuses to start without a system reservation while the contract's
// per-node `memory` is what pods may use.
const hiddenReservedMemory = int64(1 << 30)

// readAmounts reads what a NUMA node holds or an allocation takes (memory,
// hugepages-<size>, devices) out of its fields; where names the entry in the
// input for the error.
func readAmounts(where string, fields map[string]json.RawMessage, memory *int64, hugePages map[string]int64, devices *map[string]int) error {
	for key, val := range fields {
		switch {
		case key == "memory":
			b, err := quantityBytes(val)
			if err != nil {
				return fmt.Errorf("%s.memory: %w", where, err)
			}
			*memory = b
		case strings.HasPrefix(key, "hugepages-"):
			b, err := quantityBytes(val)
			if err != nil {
				return fmt.Errorf("%s.%s: %w", where, key, err)
			}
			hugePages[key] = b
		case key == "devices":
			if err := json.Unmarshal(val, devices); err != nil {
				return fmt.Errorf("%s.devices: %w", where, err)
			}
		}
	}
	return nil
}

// hiddenSocketSize is the number of reserved CPUs for the hidden socket:
// the fewest that keep cpus/sockets (integer division) as it is without it,
// capped at the smallest real NUMA node, and at least one.
func hiddenSocketSize(cpus, sockets, smallest int) int {
	if sockets == 0 {
		return 1
	}
	perSocket, rest := cpus/sockets, cpus%sockets
	size := perSocket - rest
	if size > smallest {
		size = smallest
	}
	if size < 1 {
		size = 1
	}
	return size
}

func smallestNode(spec *nodeSpec) int {
	smallest := -1
	for _, n := range spec.NUMANodes {
		if smallest < 0 || len(n.CPUs) < smallest {
			smallest = len(n.CPUs)
		}
	}
	return smallest
}

// machine is the cadvisor view of the node handed to the managers.
type machine struct {
	info       *cadvisorapi.MachineInfo // the node: what the Topology, memory and device managers see
	cpuInfo    *cadvisorapi.MachineInfo // what the CPU manager sees: info plus the hidden reserved CPUs
	cpuNUMA    map[int]int              // cpu id -> NUMA node id
	hiddenCPUs []int                    // the hidden reserved CPUs, none when the case reserves its own
}

// buildMachine renders the node as cadvisor reports it: each NUMA node in its
// socket (its own unless the case names one), cores of threadsPerCore
// consecutive CPUs of the node's list, memory and hugepages per node, and the
// distance rows indexed by node id. addHiddenCPU adds a socket of reserved
// CPUs for the static CPU policy's mandatory reservation when the case
// reserves none.
func buildMachine(spec *nodeSpec, addHiddenCPU bool, reserveMemory bool) (*machine, error) {
	m := &machine{cpuNUMA: map[int]int{}}
	info := &cadvisorapi.MachineInfo{}
	maxID := -1
	for _, n := range spec.NUMANodes {
		if n.ID > maxID {
			maxID = n.ID
		}
	}
	if spec.Distances != nil && len(spec.Distances) != len(spec.NUMANodes) {
		return nil, fmt.Errorf("node.distances has %d rows for %d NUMA nodes", len(spec.Distances), len(spec.NUMANodes))
	}
	sockets := map[int]bool{}
	maxSocket := -1
	maxCPU := -1
	for _, n := range spec.NUMANodes {
		for _, c := range n.CPUs {
			if c > maxCPU {
				maxCPU = c
			}
		}
	}
	for i, n := range spec.NUMANodes {
		node := cadvisorapi.Node{Id: n.ID, Memory: uint64(n.Memory)}
		if spec.Distances != nil {
			node.Distances = make([]uint64, maxID+1)
			for j, other := range spec.NUMANodes {
				node.Distances[other.ID] = spec.Distances[i][j]
			}
		}
		cpus := append([]int{}, n.CPUs...)
		if i == 0 && reserveMemory {
			node.Memory += uint64(hiddenReservedMemory)
		}
		for _, c := range cpus {
			if _, dup := m.cpuNUMA[c]; dup {
				return nil, fmt.Errorf("cpu %d is listed on two NUMA nodes", c)
			}
			m.cpuNUMA[c] = n.ID
		}
		threads := spec.ThreadsPerCore
		for k := 0; k+threads <= len(cpus); k += threads {
			siblings := append([]int{}, cpus[k:k+threads]...)
			node.Cores = append(node.Cores, cadvisorapi.Core{Id: len(node.Cores), Threads: siblings, SocketID: n.Socket})
		}
		sockets[n.Socket] = true
		if n.Socket > maxSocket {
			maxSocket = n.Socket
		}
		sizes := make([]string, 0, len(n.HugePages))
		for k := range n.HugePages {
			sizes = append(sizes, k)
		}
		sort.Strings(sizes)
		for _, key := range sizes {
			size, err := resource.ParseQuantity(strings.TrimPrefix(key, "hugepages-"))
			if err != nil || size.Value() <= 0 {
				return nil, fmt.Errorf("bad hugepages size in %q", key)
			}
			node.HugePages = append(node.HugePages, cadvisorapi.HugePagesInfo{
				PageSize: uint64(size.Value()) / 1024,
				NumPages: uint64(n.HugePages[key]) / uint64(size.Value()),
			})
		}
		info.MemoryCapacity += node.Memory
		info.NumCores += len(cpus)
		info.NumPhysicalCores += len(node.Cores)
		info.Topology = append(info.Topology, node)
	}
	info.NumSockets = len(sockets)
	m.info = info
	m.cpuInfo = info
	if addHiddenCPU {
		// The CPU manager alone sees one more NUMA node, in a socket of its
		// own, holding only reserved CPUs. Its size keeps two things of the
		// real node: the accumulator's idea of a socket's size (total CPUs
		// over sockets, integer division), by which it judges a socket
		// free, and every minimal hint width, which the extra node must
		// never shorten (so it is no larger than the smallest real node).
		// Both hold for equal NUMA nodes; on unequal ones the width wins.
		// Its CPUs are never available, so a hint over a set including it is
		// never narrower or preferred over the same set without it; the
		// Topology Manager's merge masks its bit away.
		// Its cores have as many threads as the node's, so that the CPUs per
		// core (total CPUs over cores) stay what the case describes.
		threads := spec.ThreadsPerCore
		size := hiddenSocketSize(info.NumCores, len(sockets), smallestNode(spec))
		if size -= size % threads; size < threads {
			size = threads
		}
		phantom := cadvisorapi.Node{Id: maxID + 1}
		for i := 0; i < size; i += threads {
			var siblings []int
			for t := 0; t < threads; t++ {
				id := maxCPU + 1 + i + t
				siblings = append(siblings, id)
				m.hiddenCPUs = append(m.hiddenCPUs, id)
				m.cpuNUMA[id] = phantom.Id
			}
			phantom.Cores = append(phantom.Cores, cadvisorapi.Core{Id: len(phantom.Cores), Threads: siblings, SocketID: maxSocket + 1})
		}
		cpuInfo := *info
		cpuInfo.Topology = append(append([]cadvisorapi.Node{}, info.Topology...), phantom)
		cpuInfo.NumCores += size
		cpuInfo.NumPhysicalCores += size / threads
		cpuInfo.NumSockets++
		m.cpuInfo = &cpuInfo
	}
	return m, nil
}
