package main

// One scheduling cycle of the release's NodeNUMAResource and DeviceShare
// plugins over the contract's nodes: PreFilter, Filter, Score and Reserve,
// in the order of the release's default profile (NodeNUMAResource first),
// with the release's Topology Manager (topologymanager.New) merging the two
// plugins' hints through the handle's RunNUMATopologyManagerAdmit, as
// frameworkext's extender does.

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	fwktype "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	apiext "github.com/koordinator-sh/koordinator/apis/extension"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/hinter"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/frameworkext/topologymanager"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/plugins/deviceshare"
	"github.com/koordinator-sh/koordinator/pkg/scheduler/plugins/nodenumaresource"
)

// A clientset the informer factories are built over; no informer is ever
// started, so it is never contacted.
var offlineClient = kubernetes.NewForConfigOrDie(&rest.Config{Host: "http://127.0.0.1:1"})

// cycleHandle is the framework handle the plugins hold for one case. What
// the two plugins call on it is answered here; the rest of the extender is
// never reached (a call would panic, and the protocol loop reports it).
type cycleHandle struct {
	frameworkext.FrameworkExtender
	lister    *sharedLister
	informers informers.SharedInformerFactory
	manager   topologymanager.Interface
	nominator frameworkext.ReservationNominator // the release's fake: nothing nominated
}

func (h *cycleHandle) SnapshotSharedLister() fwktype.SharedLister             { return h.lister }
func (h *cycleHandle) SharedInformerFactory() informers.SharedInformerFactory { return h.informers }
func (h *cycleHandle) GetReservationNominator() frameworkext.ReservationNominator {
	return h.nominator
}
func (h *cycleHandle) GetReservationCache() frameworkext.ReservationCache { return nil }
func (h *cycleHandle) RunNUMATopologyManagerAdmit(ctx context.Context, cycleState fwktype.CycleState, pod *corev1.Pod, node *corev1.Node, numaNodes []int, policyType apiext.NUMATopologyPolicy, exclusivePolicy apiext.NumaTopologyExclusive, allNUMANodeStatus []apiext.NumaNodeStatus) *fwktype.Status {
	return h.manager.Admit(ctx, cycleState, pod, node, numaNodes, policyType, exclusivePolicy, allNUMANodeStatus)
}

type sharedLister struct {
	infos map[string]*framework.NodeInfo
	list  []fwktype.NodeInfo
}

func (l *sharedLister) NodeInfos() fwktype.NodeInfoLister       { return l }
func (l *sharedLister) StorageInfos() fwktype.StorageInfoLister { return l }
func (l *sharedLister) IsPVCUsedByPods(string) bool             { return false }
func (l *sharedLister) List() ([]fwktype.NodeInfo, error)       { return l.list, nil }
func (l *sharedLister) HavePodsWithAffinityList() ([]fwktype.NodeInfo, error) {
	return nil, nil
}
func (l *sharedLister) HavePodsWithRequiredAntiAffinityList() ([]fwktype.NodeInfo, error) {
	return nil, nil
}
func (l *sharedLister) Get(name string) (fwktype.NodeInfo, error) {
	if info, ok := l.infos[name]; ok {
		return info, nil
	}
	return nil, fmt.Errorf("node %q not found", name)
}

// recordingProvider passes a plugin's hints to the Topology Manager and
// keeps the last ones it gave for each node, to report them.
type recordingProvider struct {
	topologymanager.NUMATopologyHintProvider
	hints  map[string]map[string][]topologymanager.NUMATopologyHint
	failed map[string]bool
}

func (r *recordingProvider) GetPodTopologyHints(ctx context.Context, cycleState fwktype.CycleState, pod *corev1.Pod, node *corev1.Node) (map[string][]topologymanager.NUMATopologyHint, *fwktype.Status) {
	hints, status := r.NUMATopologyHintProvider.GetPodTopologyHints(ctx, cycleState, pod, node)
	if status.IsSuccess() {
		r.hints[node.Name] = hints
	} else {
		// The Topology Manager merges nothing when a provider fails.
		r.failed[node.Name] = true
	}
	return hints, status
}

type providers []topologymanager.NUMATopologyHintProvider

func (p providers) GetNUMATopologyHintProvider() []topologymanager.NUMATopologyHintProvider { return p }

// cycle is the two plugins built for one case over its nodes.
type cycle struct {
	nnr       *nodenumaresource.Plugin
	ds        *deviceshare.Plugin
	handle    *cycleHandle
	recorders []*recordingProvider
	nodes     []*builtNode
	state     fwktype.CycleState
	pod       *corev1.Pod
}

func newCycle(in argsJSON, nodes []*builtNode, pod *corev1.Pod) (*cycle, error) {
	numaArgs, shareArgs, err := pluginArgs(in)
	if err != nil {
		return nil, err
	}
	lister := &sharedLister{infos: map[string]*framework.NodeInfo{}}
	for _, n := range nodes {
		info := framework.NewNodeInfo(n.pods...)
		info.SetNode(n.node)
		lister.infos[n.name] = info
		lister.list = append(lister.list, info)
	}
	handle := &cycleHandle{lister: lister, informers: informers.NewSharedInformerFactory(offlineClient, 0), nominator: frameworkext.NewFakeReservationNominator()}
	nnr, err := nodenumaresource.ConformanceNew(numaArgs, handle)
	if err != nil {
		return nil, fmt.Errorf("NodeNUMAResource: %w", err)
	}
	ds, err := deviceshare.ConformanceNew(shareArgs, handle)
	if err != nil {
		return nil, fmt.Errorf("DeviceShare: %w", err)
	}
	c := &cycle{nnr: nnr, ds: ds, handle: handle, nodes: nodes, state: framework.NewCycleState(), pod: pod}
	for _, p := range []topologymanager.NUMATopologyHintProvider{nnr, ds} {
		c.recorders = append(c.recorders, &recordingProvider{NUMATopologyHintProvider: p, hints: map[string]map[string][]topologymanager.NUMATopologyHint{}, failed: map[string]bool{}})
	}
	handle.manager = topologymanager.New(providers{c.recorders[0], c.recorders[1]})
	for _, n := range nodes {
		if n.nrt != nil {
			nnr.ConformanceAddTopology(n.nrt)
		}
		if n.device != nil {
			ds.ConformanceAddDevice(n.device)
		}
		for _, p := range n.pods {
			nnr.ConformanceAddPod(p)
			ds.ConformanceAddPod(p)
		}
	}
	return c, nil
}

// preFilter runs both plugins' PreFilter; a status other than success and
// skip refuses the pod.
func (c *cycle) preFilter(ctx context.Context) *fwktype.Status {
	// The SchedulingHint plugin's BeforePreFilter: the pod's hint goes into the
	// cycle state (DeviceShare's PreFilter keeps a designated allocation only
	// when it names DeviceShare), and one that cannot be decoded stops the pod.
	hint, err := apiext.GetSchedulingHint(c.pod)
	if err != nil {
		return fwktype.NewStatus(fwktype.Error, err.Error())
	}
	if hint != nil {
		hinter.SetSchedulingHintState(c.state, &hinter.SchedulingHintStateData{
			PreFilterNodes: hint.NodeNames, PreferredNodes: hint.PreferredNodeNames, Extensions: hint.Extensions,
		})
	}
	infos, _ := c.handle.lister.List()
	for _, pl := range []fwktype.PreFilterPlugin{c.nnr, c.ds} {
		if _, status := pl.PreFilter(ctx, c.state, c.pod, infos); !status.IsSuccess() && !status.IsSkip() {
			return status
		}
	}
	return nil
}

func (c *cycle) filter(ctx context.Context, nodeName string) *fwktype.Status {
	info := c.handle.lister.infos[nodeName]
	for _, pl := range []fwktype.FilterPlugin{c.nnr, c.ds} {
		if status := pl.Filter(ctx, c.state, c.pod, info); !status.IsSuccess() {
			return status
		}
	}
	return nil
}

func (c *cycle) reserve(ctx context.Context, nodeName string) *fwktype.Status {
	recordPhaseReserve(c.state)
	defer recordPhaseNone(c.state)
	for _, pl := range []fwktype.ReservePlugin{c.nnr, c.ds} {
		if status := pl.Reserve(ctx, c.state, c.pod, nodeName); !status.IsSuccess() {
			return status
		}
	}
	return nil
}

// hints are the providers' hints that entered the merge on a node, by
// resource (NodeNUMAResource's first, DeviceShare's after).
func (c *cycle) hints(nodeName string) map[string][]topologymanager.NUMATopologyHint {
	out := map[string][]topologymanager.NUMATopologyHint{}
	if c.noMerge(nodeName) {
		return out
	}
	for _, r := range c.recorders {
		for resource, list := range r.hints[nodeName] {
			out[resource] = list
		}
	}
	return out
}

// providerHints are the providers' hint maps in provider order, as the
// Topology Manager accumulated them on the node.
func (c *cycle) providerHints(nodeName string) []map[string][]topologymanager.NUMATopologyHint {
	var out []map[string][]topologymanager.NUMATopologyHint
	if c.noMerge(nodeName) {
		return nil
	}
	for _, r := range c.recorders {
		if hints, found := r.hints[nodeName]; found {
			out = append(out, hints)
		}
	}
	return out
}

func (c *cycle) noMerge(nodeName string) bool {
	for _, r := range c.recorders {
		if r.failed[nodeName] {
			return true
		}
	}
	return false
}

func (c *cycle) merged(nodeName string) (topologymanager.NUMATopologyHint, bool) {
	return topologymanager.GetStore(c.state).GetAffinity(nodeName)
}
