// This file is not part of Kueue. shims/kueue/build-local.sh lays it over a
// copy of a local Kueue tree (the main branch), in place of the release's
// overlay of the same name: the TAS cache there builds its snapshots from a
// shared topology tree and a scheduling simulator, so the entry points differ.
// It only reaches what the package keeps unexported; nothing here decides a
// placement. The placement's first phase (per-domain counts) is not exposed:
// the shim answers capacity unsupported for such a tree.

package scheduler

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/workload"
)

// ConformanceFlavor is one ResourceFlavor with its Topology in a TAS cache of
// its own.
type ConformanceFlavor struct {
	cache tasCache
	name  kueue.ResourceFlavorReference
}

// NewConformanceFlavor registers the topology and the flavor as the cache's
// Topology and ResourceFlavor event handlers do.
func NewConformanceFlavor(topology *kueue.Topology, flavor *kueue.ResourceFlavor) *ConformanceFlavor {
	c := &ConformanceFlavor{cache: NewTASCache(nil, newDefaultSimulator(), resources.NewResourceFormatter()), name: kueue.ResourceFlavorReference(flavor.Name)}
	c.cache.AddTopology(topology)
	c.cache.AddOrUpdateFlavor(flavor)
	return c
}

// Linked reports whether the cache joined the flavor to the topology.
func (c *ConformanceFlavor) Linked() bool { return c.cache.Get(c.name) != nil }

func (c *ConformanceFlavor) SyncNode(node *corev1.Node) { c.cache.SyncNode(node) }

func (c *ConformanceFlavor) DeleteNode(name string) { c.cache.DeleteNodeByName(name) }

func (c *ConformanceFlavor) UpdatePod(pod *corev1.Pod) {
	c.cache.UpdateNonTASUsage(pod, klog.Background())
}

// AddWorkloadUsage records an admitted workload's TAS usage, as the cache
// does when a workload is admitted.
func (c *ConformanceFlavor) AddWorkloadUsage(key string, requests []workload.TopologyDomainRequests) {
	c.cache.Get(c.name).addUsage(klog.Background(), workload.Reference(key), requests)
}

// IncludedNodes names the nodes the snapshot is built from.
func (c *ConformanceFlavor) IncludedNodes() []string {
	fc := c.cache.Get(c.name)
	nodes, _ := c.cache.nodesCache.find(fc.flavor.NodeLabels, fc.topology.Levels)
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}

// Snapshot builds the flavor snapshot as Cache.Snapshot does (the default
// simulator, no cross-flavor usage).
func (c *ConformanceFlavor) Snapshot() *TASFlavorSnapshot {
	fc := c.cache.Get(c.name)
	sim, err := c.cache.schedulingSimulator.Snapshot(context.Background(), c.cache.nodesCache.getAllNodes())
	if err != nil {
		panic(err)
	}
	snap, err := fc.snapshot(context.Background(), klog.Background(), sim, nil)
	if err != nil {
		panic(err)
	}
	return snap
}
