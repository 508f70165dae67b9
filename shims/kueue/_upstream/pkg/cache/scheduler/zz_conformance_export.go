// This file is not part of Kueue. shims/kueue/build.sh copies it into a copy
// of the pinned release's pkg/cache/scheduler, taken from the module cache, so
// the conformance shim can build the TAS flavor snapshot the way the cache
// does (without a client, a ClusterQueue or quota) and read the per-domain
// capacity that the placement algorithm computes. Nothing here decides a
// placement: it only reaches what the package keeps unexported.

package scheduler

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/podset"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/util/tas"
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
	c := &ConformanceFlavor{cache: NewTASCache(nil), name: kueue.ResourceFlavorReference(flavor.Name)}
	c.cache.AddTopology(topology)
	c.cache.AddFlavor(flavor)
	return c
}

// Linked reports whether the cache joined the flavor to the topology.
func (c *ConformanceFlavor) Linked() bool { return c.cache.Get(c.name) != nil }

func (c *ConformanceFlavor) SyncNode(node *corev1.Node) { c.cache.SyncNode(node) }

func (c *ConformanceFlavor) DeleteNode(name string) { c.cache.DeleteNodeByName(name) }

func (c *ConformanceFlavor) UpdatePod(pod *corev1.Pod) { c.cache.Update(pod, klog.Background()) }

// AddWorkloadUsage records an admitted workload's TAS usage, as the cache
// does when a workload is admitted.
func (c *ConformanceFlavor) AddWorkloadUsage(key string, requests []workload.TopologyDomainRequests) {
	c.cache.Get(c.name).addUsage(workload.Reference(key), requests)
}

// IncludedNodes names the nodes the snapshot is built from.
func (c *ConformanceFlavor) IncludedNodes() []string {
	fc := c.cache.Get(c.name)
	var names []string
	for _, n := range c.cache.nodesCache.find(fc.flavor.NodeLabels, fc.topology.Levels) {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}

// Snapshot builds the flavor snapshot as Cache.Snapshot does.
func (c *ConformanceFlavor) Snapshot() *TASFlavorSnapshot {
	fc := c.cache.Get(c.name)
	return fc.snapshot(klog.Background(), c.cache.nodesCache.find(fc.flavor.NodeLabels, fc.topology.Levels))
}

// ConformanceDomain is one domain of a snapshot: its level index, its path,
// its free capacity (sum over its leaves of capacity minus non-TAS usage minus
// TAS usage) and, after ConformanceFillCounts, the pods that fit in it.
type ConformanceDomain struct {
	Level    int
	Values   []string
	Free     resources.Requests
	PodCount int32
}

// ConformanceLeafExclusion says why the placement's first phase gives a leaf
// no pods before looking at capacity: an untolerated taint, the podset's
// nodeSelector or its required node affinity (only for hostname-lowest
// topologies).
type ConformanceLeafExclusion struct {
	Node   string
	Reason string
}

// ConformanceFillCounts runs the placement's first phase (fillInCounts) for
// one pod set with one-pod slices at the lowest level, as the algorithm does
// before choosing domains, and reports the exclusions it made.
func (s *TASFlavorSnapshot) ConformanceFillCounts(tr *TASPodSetRequests) ([]ConformanceLeafExclusion, string) {
	requests := tr.SinglePodRequests.Clone()
	requests.Add(resources.Requests{corev1.ResourcePods: 1})
	info := podset.FromPodSet(tr.PodSet)
	selector := labels.Everything()
	if s.isLowestLevelNode {
		sel, err := labels.ValidatedSelectorFromSet(info.NodeSelector)
		if err != nil {
			return nil, err.Error()
		}
		selector = sel
	}
	var affinity *nodeaffinity.NodeSelector
	if info.Affinity != nil && info.Affinity.NodeAffinity != nil && info.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		var err error
		affinity, err = nodeaffinity.NewNodeSelector(info.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		if err != nil {
			return nil, err.Error()
		}
	}
	tolerations := append(slices.Clone(info.Tolerations), s.tolerations...)
	stats := newExclusionStats()
	s.fillInCounts(requests, nil, nil, 1, len(s.levelKeys)-1, false, tolerations, selector, affinity, "", stats, nil)
	var out []ConformanceLeafExclusion
	if s.isLowestLevelNode {
		// fillInCounts only counts exclusions; the per-node classification
		// repeats its three checks in its order.
		for _, leaf := range s.leaves {
			if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(s.log, leaf.node.Taints, tolerations, func(t *corev1.Taint) bool {
				return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
			}, true); untolerated {
				out = append(out, ConformanceLeafExclusion{Node: leaf.node.Name, Reason: "UntoleratedTaint"})
				continue
			}
			if !selector.Matches(labels.Set(leaf.node.Labels)) {
				out = append(out, ConformanceLeafExclusion{Node: leaf.node.Name, Reason: "NodeSelectorMismatch"})
				continue
			}
			if affinity != nil && !affinity.Match(leaf.node.toNode()) {
				out = append(out, ConformanceLeafExclusion{Node: leaf.node.Name, Reason: "NodeAffinityMismatch"})
			}
		}
	}
	return out, ""
}

// ConformanceDomains lists every domain that holds a leaf not in excluded
// (node names), outermost level first, each level in path order, with the
// free capacity of those leaves and the state the last ConformanceFillCounts
// left.
func (s *TASFlavorSnapshot) ConformanceDomains(excluded map[string]bool) []ConformanceDomain {
	free := map[tas.TopologyDomainID]resources.Requests{}
	for _, leaf := range s.leaves {
		if leaf.node != nil && excluded[leaf.node.Name] {
			continue
		}
		r := resources.Requests{corev1.ResourcePods: 0}
		r.Add(leaf.freeCapacity)
		r.Sub(leaf.tasUsage)
		for d := &leaf.domain; d != nil; d = d.parent {
			if free[d.id] == nil {
				free[d.id] = resources.Requests{}
			}
			free[d.id].Add(r)
		}
	}
	var out []ConformanceDomain
	for level, byID := range s.domainsPerLevel {
		var doms []*domain
		for _, d := range byID {
			if free[d.id] != nil {
				doms = append(doms, d)
			}
		}
		slices.SortFunc(doms, func(a, b *domain) int { return slices.Compare(a.levelValues, b.levelValues) })
		for _, d := range doms {
			out = append(out, ConformanceDomain{Level: level, Values: slices.Clone(d.levelValues), Free: free[d.id], PodCount: d.state})
		}
	}
	return out
}

// ConformanceLevels are the snapshot's level keys.
func (s *TASFlavorSnapshot) ConformanceLevels() []string { return slices.Clone(s.levelKeys) }
