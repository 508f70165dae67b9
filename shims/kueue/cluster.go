package main

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/features"

	"topoconf/shims/protocol"
)

// cluster is the state a case describes, loaded into the release's TAS cache.
type cluster struct {
	topology *kueue.Topology
	flavor   *kueue.ResourceFlavor
	nodes    []*corev1.Node
	cache    *schdcache.ConformanceFlavor
}

// loadCluster configures the gates, applies the refusals common to every
// operation but validate and fills a TAS cache with the case's nodes, non-TAS
// pods and admitted workloads. A non-nil answer ends the case.
func loadCluster(raw json.RawMessage) (*cluster, *answer) {
	var in clusterInput
	if err := json.Unmarshal(raw, &in); err != nil {
		a := failure("InvalidInput", err)
		return nil, &a
	}
	if g := configureGates(in.gateInput); g != nil {
		a := g.answer()
		return nil, &a
	}
	if !features.Enabled(features.TopologyAwareScheduling) {
		a := ok(refused("TopologyAwareSchedulingDisabled", "the TopologyAwareScheduling feature gate is disabled"))
		return nil, &a
	}
	topology, err := decodeTopology(in.Topology)
	if err != nil {
		a := failure("InvalidInput", fmt.Errorf("topology: %w", err))
		return nil, &a
	}
	flavor, err := decodeFlavor(in.ResourceFlavor)
	if err != nil {
		a := failure("InvalidInput", fmt.Errorf("resourceFlavor: %w", err))
		return nil, &a
	}
	if problem := crdProblem(topology, flavor); problem != nil {
		return nil, problem
	}
	c := &cluster{topology: topology, flavor: flavor, cache: schdcache.NewConformanceFlavor(topology, flavor)}
	if !c.cache.Linked() {
		a := ok(refused("TopologyMismatch", fmt.Sprintf("ResourceFlavor %q refers to topology %q, not %q",
			flavor.Name, deref(flavor.Spec.TopologyName), topology.Name)))
		return nil, &a
	}
	for i, rawNode := range in.Nodes {
		node, err := decodeNode(rawNode)
		if err != nil {
			a := failure("InvalidInput", fmt.Errorf("nodes[%d]: %w", i, err))
			return nil, &a
		}
		c.nodes = append(c.nodes, node)
	}
	// Filling the cache as its event handlers would is the part of building
	// a snapshot that a scheduler does once, not per workload.
	protocol.Timed("cache", func() { c.fill(in) })
	return c, nil
}

func (c *cluster) fill(in clusterInput) {
	for _, node := range c.nodes {
		c.cache.SyncNode(node)
	}
	// The non-TAS usage controller's own event filter decides which pods count.
	filter := nonTASPodFilter()
	for i := range in.Pods {
		pod := &in.Pods[i]
		if pod.Namespace == "" {
			pod.Namespace = "default"
		}
		if pod.Name == "" {
			pod.Name = fmt.Sprintf("pod-%d", i)
		}
		if filter.Create(event.TypedCreateEvent[*corev1.Pod]{Object: pod}) {
			c.cache.UpdatePod(pod)
		}
	}
	for i, wl := range in.AdmittedWorkloads {
		name := wl.Name
		if name == "" {
			name = fmt.Sprintf("admitted-%d", i)
		}
		c.cache.AddWorkloadUsage("default/"+name, wl.domainRequests())
	}
}

func deref[T ~string](s *T) string {
	if s == nil {
		return ""
	}
	return string(*s)
}

func hostnameLowest(levels []string) bool {
	return len(levels) > 0 && levels[len(levels)-1] == corev1.LabelHostname
}

func hasPrefixAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
