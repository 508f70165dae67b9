package main

// hot_swap: the release's TAS node controller (pkg/controller/tas
// node_controller.go, its Reconcile and its node event filter) and the
// scheduler's second pass (pkg/scheduler scheduler.go schedule, with the
// queue manager's second-pass queue) run over a controller-runtime fake
// client that holds the case's Nodes, the workload's Pods and the Workload.
// The timeline (which node is reconciled when, when the second pass runs)
// is the contract's (docs/operations/kueue.md, hot_swap); every decision
// (failed or healthy, marking, eviction, the replacement and its failure) is
// upstream's, read back from the objects the controllers patched.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/component-base/featuregate"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	qcache "sigs.k8s.io/kueue/pkg/cache/queue"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	coreindexer "sigs.k8s.io/kueue/pkg/controller/core/indexer"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	tascontroller "sigs.k8s.io/kueue/pkg/controller/tas"
	tasindexer "sigs.k8s.io/kueue/pkg/controller/tas/indexer"
	"sigs.k8s.io/kueue/pkg/features"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/scheduler"
	preemptexpectations "sigs.k8s.io/kueue/pkg/scheduler/preemption/expectations"
	utiltas "sigs.k8s.io/kueue/pkg/util/tas"
	"sigs.k8s.io/kueue/pkg/workload"
)

const (
	swapNamespace   = "default"
	swapQueue       = "lq"
	swapCQ          = "cq"
	notReadyDelay   = 30.0 // pkg/controller/tas/constants.go NodeFailureDelay
	secondPassSteps = 31 * time.Second
)

var swapBase = time.Unix(1_700_000_000, 0).UTC()

type hotSwapInput struct {
	Workload struct {
		Name           string                  `json:"name"`
		Owners         []metav1.OwnerReference `json:"owners"`
		Annotations    map[string]string       `json:"annotations"`
		PodSets        []podSetInput           `json:"podSets"`
		PodStates      map[string]string       `json:"podStates"`
		UnhealthyNodes []string                `json:"unhealthyNodes"`
		// Written into status.admissionChecks as they are: the release's
		// controllers decide what they read of them.
		AdmissionChecks []kueue.AdmissionCheckState `json:"admissionChecks"`
		StrayPods       []string                    `json:"strayPods"`
	} `json:"workload"`
	TaintEvictionController *bool             `json:"taintEvictionController"`
	Events                  []json.RawMessage `json:"events"`
}

type swapEvent struct {
	At         *float64        `json:"at"`
	Type       string          `json:"type"`
	Node       string          `json:"node"`
	Status     string          `json:"status"`
	Taint      *corev1.Taint   `json:"taint"`
	NodeObject json.RawMessage `json:"nodeObject"`
}

var podStateNames = []string{"Running", "Pending", "Gated", "Terminating", "Terminated"}

type taintKey struct {
	node, key, value string
	effect           corev1.TaintEffect
}

type swapSim struct {
	ctx      context.Context
	log      logr.Logger
	cl       client.Client
	cache    *schdcache.Cache
	queues   *qcache.Manager
	sched    *scheduler.Scheduler
	nodes    *tascontroller.ConformanceNodeReconciler
	clk      *testingclock.FakeClock
	queueClk *testingclock.FakeClock
	flavor   *kueue.ResourceFlavor

	wlKey      types.NamespacedName
	podSets    []podSetInput
	podStates  map[string]string
	podGen     int
	taintAdded map[taintKey]float64
	fired      map[string]bool
	evictions  bool

	now     float64
	evicted bool
	// usedFixedTime: a node was marked through the 30 s NotReady branch.
	usedFixedTime bool
	actions       []map[string]any
	// requeueAt: when the node controller asked to look at a node again.
	requeueAt map[string]float64
}

func secondsTime(s float64) metav1.Time {
	return metav1.NewTime(swapBase.Add(time.Duration(s * float64(time.Second))))
}

func timeSeconds(t metav1.Time) float64 {
	return t.Time.Sub(swapBase).Seconds()
}

func num(v float64) any {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return int64(v)
	}
	return v
}

// decodeTimedNode reads a Node whose condition times are seconds on the
// case's clock.
func decodeTimedNode(raw json.RawMessage) (*corev1.Node, error) {
	return decodeNodeConditions(raw, func(m map[string]any) error {
		for _, k := range []string{"lastTransitionTime", "lastHeartbeatTime"} {
			secs := 0.0
			switch v := m[k].(type) {
			case float64:
				secs = v
			case nil:
			default:
				return fmt.Errorf("conditions: %s must be a number of seconds", k)
			}
			t := secondsTime(secs)
			b, _ := t.MarshalJSON()
			var s string
			_ = json.Unmarshal(b, &s)
			m[k] = s
		}
		return nil
	})
}

// indexAdapter registers the release's field indexes on the fake client,
// each (kind, field) once.
type indexAdapter struct {
	b    *fake.ClientBuilder
	seen map[string]bool
}

func (a indexAdapter) IndexField(_ context.Context, obj client.Object, field string, fn client.IndexerFunc) error {
	key := fmt.Sprintf("%T/%s", obj, field)
	if a.seen[key] {
		return nil
	}
	a.seen[key] = true
	a.b.WithIndex(obj, field, fn)
	return nil
}

func invalid(format string, args ...any) answer {
	return failure("InvalidInput", fmt.Errorf(format, args...))
}

func runHotSwap(raw json.RawMessage) answer {
	var in clusterInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("InvalidInput", err)
	}
	var hs hotSwapInput
	if err := json.Unmarshal(raw, &hs); err != nil {
		return failure("InvalidInput", err)
	}
	if g := configureGates(in.gateInput); g != nil {
		return g.answer()
	}
	// How the controllers write their patches (merge patches instead of
	// server-side apply, which the fake client does not implement); no
	// effect on what they decide.
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{string(features.WorkloadRequestUseMergePatch): true}); err != nil {
		return failure("cannot configure the release", err)
	}
	if !features.Enabled(features.TopologyAwareScheduling) {
		return ok(refused("TopologyAwareSchedulingDisabled", "the TopologyAwareScheduling feature gate is disabled"))
	}
	topology, err := decodeTopology(in.Topology)
	if err != nil {
		return invalid("topology: %v", err)
	}
	flavor, err := decodeFlavor(in.ResourceFlavor)
	if err != nil {
		return invalid("resourceFlavor: %v", err)
	}
	if problem := crdProblem(topology, flavor); problem != nil {
		return *problem
	}
	if deref(flavor.Spec.TopologyName) != topology.Name {
		return ok(refused("TopologyMismatch", fmt.Sprintf("ResourceFlavor %q refers to topology %q, not %q",
			flavor.Name, deref(flavor.Spec.TopologyName), topology.Name)))
	}
	if u := notDrivenYet(raw, hs); u != nil {
		return *u
	}
	if !hostnameLowest(utiltas.Levels(topology)) {
		return unsupported("the shim builds pods per assigned node: a topology without a kubernetes.io/hostname level is not driven yet")
	}
	errUnclassified = nil
	if errs := webhookErrors(hs.Workload.PodSets); len(errs) > 0 {
		return invalid("workload.podSets[%s].annotations: %s", errs[0].PodSet, errs[0].Message)
	}
	if hs.Events == nil {
		return invalid("events: required list")
	}
	if contractOnly[podOwnedSkipGate] && podOwned(hs.Workload.Owners, hs.Workload.Annotations) {
		return unsupported("Kueue %s has no %s: it cannot keep the assignment of a pod-owned workload or leave it unrequeued", linkedVersion(), podOwnedSkipGate)
	}
	if u := preferredAffinityUnsupported(hs.Workload.PodSets); u != nil {
		return *u
	}
	sim, bad := newSwapSim(in, hs, topology, flavor)
	if bad != nil {
		return *bad
	}
	return sim.run(hs.Events)
}

func newSwapSim(in clusterInput, hs hotSwapInput, topology *kueue.Topology, flavor *kueue.ResourceFlavor) (*swapSim, *answer) {
	fail := func(a answer) (*swapSim, *answer) { return nil, &a }
	ctx := ctrl.LoggerInto(context.Background(), logr.Discard())
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = kueue.AddToScheme(scheme)
	builder := fake.NewClientBuilder().WithScheme(scheme).
		WithStatusSubresource(&kueue.Workload{}, &corev1.Pod{}, &corev1.Node{}, &kueue.ClusterQueue{}, &kueue.LocalQueue{})
	indexes := indexAdapter{builder, map[string]bool{}}
	if err := tasindexer.SetupIndexes(ctx, indexes); err != nil {
		return fail(failure("cannot set up the release's indexes", err))
	}
	if err := coreindexer.Setup(ctx, indexes); err != nil {
		return fail(failure("cannot set up the release's indexes", err))
	}
	_ = indexes.IndexField(ctx, &corev1.Pod{}, coreindexer.WorkloadSliceNameKey, coreindexer.IndexPodWorkloadSliceName)
	cl := builder.Build()
	clk := testingclock.NewFakeClock(swapBase)
	queueClk := testingclock.NewFakeClock(swapBase)
	cache := schdcache.New(cl)
	// The store the manager shares between the queues and the scheduler for
	// in-flight preemptions (after v0.17 admission reads it).
	preemptions := preemptexpectations.New()
	queues := qcache.NewManagerForUnitTests(cl, cache, qcache.WithClock(queueClk), qcache.WithPreemptionExpectations(preemptions))
	s := &swapSim{
		ctx: ctx, log: logr.Discard(), cl: cl, cache: cache, queues: queues, clk: clk, queueClk: queueClk, flavor: flavor,
		podStates: map[string]string{}, taintAdded: map[taintKey]float64{}, fired: map[string]bool{}, evictions: true, requeueAt: map[string]float64{},
	}
	if hs.TaintEvictionController != nil {
		s.evictions = *hs.TaintEvictionController
	}
	s.nodes = tascontroller.NewConformanceNodeReconciler(cl, quietRecorder{}, cache, clk)
	s.sched = scheduler.New(queues, cache, cl, quietRecorder{}, scheduler.WithClock(nil, clk),
		scheduler.WithPreemptionExpectations(preemptions))

	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: swapNamespace}}); err != nil {
		return fail(failure("fake client", err))
	}
	for i, rawNode := range in.Nodes {
		node, err := decodeTimedNode(rawNode)
		if err != nil {
			return fail(invalid("nodes[%d]: %v", i, err))
		}
		if err := createWithStatus(ctx, cl, node, func() { node.Status = *node.Status.DeepCopy() }); err != nil {
			return fail(invalid("nodes[%d]: %v", i, err))
		}
		s.nodes.Created(node)
		for _, t := range node.Spec.Taints {
			s.taintAdded[taintKey{node.Name, t.Key, t.Value, t.Effect}] = 0
		}
	}
	cache.AddOrUpdateResourceFlavor(s.log, flavor.DeepCopy())
	cache.AddOrUpdateTopology(s.log, topology.DeepCopy())

	// A ClusterQueue whose only flavor is the TAS flavor, with room for
	// every request: hot swap never waits on quota.
	covered := map[corev1.ResourceName]bool{}
	addCovered := func(ps []podSetInput) {
		for _, p := range ps {
			for _, name := range requestNames(p.singlePodRequests()) {
				covered[name] = true
			}
		}
	}
	addCovered(hs.Workload.PodSets)
	for _, wl := range in.AdmittedWorkloads {
		addCovered(wl.PodSets)
	}
	names := make([]corev1.ResourceName, 0, len(covered))
	for n := range covered {
		names = append(names, n)
	}
	slices.Sort(names)
	var quotas []kueue.ResourceQuota
	for _, n := range names {
		quotas = append(quotas, kueue.ResourceQuota{Name: n, NominalQuota: resource.MustParse("1P")})
	}
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: swapCQ},
		Spec: kueue.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueue.ResourceGroup{{
				CoveredResources: names,
				Flavors:          []kueue.FlavorQuotas{{Name: kueue.ResourceFlavorReference(flavor.Name), Resources: quotas}},
			}},
		},
	}
	if len(names) > 0 {
		if err := cache.AddClusterQueue(ctx, cq); err != nil {
			return fail(failure("cache: cluster queue", err))
		}
		if err := queues.AddClusterQueue(ctx, cq); err != nil {
			return fail(failure("queues: cluster queue", err))
		}
		_ = cl.Create(ctx, cq.DeepCopy())
		// The ResourceFlavor object too: after v0.17 the node controller
		// reads its tolerations from the API when it judges taints.
		if err := cl.Create(ctx, flavor.DeepCopy()); err != nil {
			return fail(failure("fake client: resource flavor", err))
		}
		lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: swapQueue, Namespace: swapNamespace},
			Spec: kueue.LocalQueueSpec{ClusterQueue: swapCQ}}
		_ = cl.Create(ctx, lq.DeepCopy())
		if err := queues.AddLocalQueue(ctx, lq); err != nil {
			return fail(failure("queues: local queue", err))
		}
	}

	// Non-TAS pods, through the non-TAS usage controller's event filter.
	filter := nonTASPodFilter()
	for i := range in.Pods {
		pod := in.Pods[i].DeepCopy()
		if pod.Namespace == "" {
			pod.Namespace = swapNamespace
		}
		if pod.Name == "" {
			pod.Name = fmt.Sprintf("pod-%d", i)
		}
		if filter.Create(event.TypedCreateEvent[*corev1.Pod]{Object: pod}) {
			updateNonTASUsage(cache, pod, s.log)
		}
	}
	// Other admitted workloads: in the cache, as the workload controller
	// keeps admitted workloads.
	for i, other := range in.AdmittedWorkloads {
		name := other.Name
		if name == "" {
			name = fmt.Sprintf("admitted-%d", i)
		}
		wl := s.admittedWorkload(name, other.PodSets, nil, nil)
		cache.AddOrUpdateWorkload(s.log, wl)
	}

	// The workload under test.
	name := hs.Workload.Name
	if name == "" {
		name = "sample"
	}
	s.podSets = hs.Workload.PodSets
	for i := range s.podSets {
		if ta := s.podSets[i].TopologyAssignment; ta != nil {
			if len(ta.Levels) > 0 && ta.Levels[len(ta.Levels)-1] != corev1.LabelHostname {
				return fail(invalid("workload.podSets[%d].topologyAssignment.levels: the lowest assignment level must be kubernetes.io/hostname", i))
			}
			hostOnly := &assignmentJSON{Levels: []string{corev1.LabelHostname}}
			for _, d := range ta.Domains {
				if len(d.Values) == 0 {
					return fail(invalid("workload.podSets[%d].topologyAssignment: a domain without values", i))
				}
				hostOnly.Domains = append(hostOnly.Domains, domainJSON{Values: []string{d.Values[len(d.Values)-1]}, Count: d.Count})
			}
			s.podSets[i].TopologyAssignment = hostOnly
		}
	}
	var unhealthy []kueue.UnhealthyNode
	for _, n := range hs.Workload.UnhealthyNodes {
		unhealthy = append(unhealthy, kueue.UnhealthyNode{Name: n})
	}
	wl := s.admittedWorkload(name, s.podSets, hs.Workload.Owners, hs.Workload.Annotations)
	wl.Status.UnhealthyNodes = unhealthy
	for _, check := range hs.Workload.AdmissionChecks {
		if check.State == "" {
			check.State = kueue.CheckStateReady
		}
		check.LastTransitionTime = metav1.NewTime(swapBase)
		wl.Status.AdmissionChecks = append(wl.Status.AdmissionChecks, check)
	}
	status := wl.Status
	if err := cl.Create(ctx, wl); err != nil {
		return fail(failure("fake client: workload", err))
	}
	wl.Status = status
	if err := cl.Status().Update(ctx, wl); err != nil {
		return fail(failure("fake client: workload status", err))
	}
	s.wlKey = types.NamespacedName{Namespace: swapNamespace, Name: name}

	for host := range s.assignedCounts() {
		s.podStates[host] = "Running"
	}
	for host, state := range hs.Workload.PodStates {
		if !slices.Contains(podStateNames, state) {
			return fail(invalid("workload.podStates.%s: one of %s", host, strings.Join(podStateNames, ", ")))
		}
		s.podStates[host] = state
	}
	hosts := make([]string, 0, len(s.podStates))
	for h := range s.podStates {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		if err := s.setPods(h, s.podStates[h]); err != nil {
			return fail(failure("fake client: pods", err))
		}
	}
	// The workload controller's create handler.
	s.workloadChanged()
	return s, nil
}

// admittedWorkload builds a Workload admitted by the ClusterQueue with the
// given topology assignments.
func (s *swapSim) admittedWorkload(name string, podSets []podSetInput, owners []metav1.OwnerReference, annotations map[string]string) *kueue.Workload {
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: swapNamespace, OwnerReferences: owners, Annotations: annotations,
		CreationTimestamp: metav1.NewTime(swapBase)},
		Spec: kueue.WorkloadSpec{QueueName: swapQueue}}
	admission := &kueue.Admission{ClusterQueue: swapCQ}
	for _, p := range podSets {
		ps := p.podSet()
		// The job integrations write the parsed request into the podset.
		if tr, err := jobframework.NewPodSetTopologyRequest(&ps.Template.ObjectMeta).Build(); err == nil {
			ps.TopologyRequest = tr
		}
		count := p.Count
		if p.TopologyAssignment != nil && count == 0 {
			for _, d := range p.TopologyAssignment.Domains {
				count += d.Count
			}
		}
		ps.Count = count
		wl.Spec.PodSets = append(wl.Spec.PodSets, ps)
		single := p.singlePodRequests()
		psa := kueue.PodSetAssignment{Name: ps.Name, Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{},
			ResourceUsage: corev1.ResourceList{}, Count: ptr.To(count)}
		for _, rn := range requestNames(single) {
			psa.Flavors[rn] = kueue.ResourceFlavorReference(s.flavor.Name)
		}
		psa.ResourceUsage = requestsToList(single.ScaledUp(int64(count)))
		if ta := p.TopologyAssignment; ta != nil {
			internal := &utiltas.TopologyAssignment{Levels: ta.Levels}
			for _, d := range ta.Domains {
				internal.Domains = append(internal.Domains, utiltas.TopologyDomainAssignment{Values: d.Values, Count: d.Count})
			}
			psa.TopologyAssignment = utiltas.V1Beta2From(internal)
		}
		admission.PodSetAssignments = append(admission.PodSetAssignments, psa)
	}
	workload.SetQuotaReservation(wl, admission, s.clk)
	workload.SyncAdmittedCondition(wl, s.clk.Now())
	return wl
}

var _ resources.Requests

func (s *swapSim) workload() *kueue.Workload {
	var wl kueue.Workload
	if err := s.cl.Get(s.ctx, s.wlKey, &wl); err != nil {
		return nil
	}
	return &wl
}

// workloadChanged does what the workload controller's event handlers do for
// an admitted workload: the cache keeps it, and the second pass is queued
// when it needs one.
func (s *swapSim) workloadChanged() {
	wl := s.workload()
	if wl == nil {
		return
	}
	if isEvicted(wl) {
		return
	}
	s.cache.AddOrUpdateWorkload(s.log, wl.DeepCopy())
	s.queues.QueueSecondPassIfNeeded(s.ctx, wl.DeepCopy(), 0)
}

// assignedCounts is the pods per host of the workload's current assignment.
func (s *swapSim) assignedCounts() map[string]int32 {
	out := map[string]int32{}
	for _, h := range s.assignedHosts() {
		out[h.host] += h.count
	}
	return out
}

type hostCount struct {
	podSet string
	host   string
	count  int32
}

func (s *swapSim) assignedHosts() []hostCount {
	var out []hostCount
	wl := s.workload()
	if wl != nil && wl.Status.Admission != nil {
		byName := map[string]kueue.PodSetAssignment{}
		for _, psa := range wl.Status.Admission.PodSetAssignments {
			byName[string(psa.Name)] = psa
		}
		for _, p := range s.podSets {
			psa, found := byName[p.Name]
			if !found || psa.TopologyAssignment == nil {
				continue
			}
			for d := range utiltas.InternalSeqFrom(psa.TopologyAssignment) {
				out = append(out, hostCount{p.Name, d.Values[len(d.Values)-1], d.Count})
			}
		}
		return out
	}
	for _, p := range s.podSets {
		if p.TopologyAssignment == nil {
			continue
		}
		for _, d := range p.TopologyAssignment.Domains {
			out = append(out, hostCount{p.Name, d.Values[len(d.Values)-1], d.Count})
		}
	}
	return out
}

func (s *swapSim) assignedNodeNames() []string {
	var out []string
	for _, h := range s.assignedHosts() {
		if !slices.Contains(out, h.host) {
			out = append(out, h.host)
		}
	}
	return out
}

func (s *swapSim) podSetInput(name string) *podSetInput {
	for i := range s.podSets {
		if s.podSets[i].Name == name {
			return &s.podSets[i]
		}
	}
	return nil
}

// setPods replaces the workload's pods on host by pods in the given state
// (one pod per assigned pod slot, at least one).
func (s *swapSim) setPods(host, state string) error {
	var pods corev1.PodList
	if err := s.cl.List(s.ctx, &pods, client.InNamespace(swapNamespace)); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Annotations[kueue.WorkloadAnnotation] != s.wlKey.Name || p.Labels["conformance.topoconf/host"] != host {
			continue
		}
		if len(p.Finalizers) > 0 {
			p.Finalizers = nil
			if err := s.cl.Update(s.ctx, p); err != nil {
				return err
			}
		}
		if err := s.cl.Delete(s.ctx, p); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	s.podStates[host] = state
	slots := []hostCount{}
	for _, h := range s.assignedHosts() {
		if h.host == host {
			slots = append(slots, h)
		}
	}
	if len(slots) == 0 && len(s.podSets) > 0 {
		slots = append(slots, hostCount{s.podSets[0].Name, host, 1})
	}
	for _, slot := range slots {
		in := s.podSetInput(slot.podSet)
		for i := int32(0); i < max(slot.count, 1); i++ {
			s.podGen++
			ps := in.podSet()
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("%s-%s-%d", s.wlKey.Name, slot.podSet, s.podGen), Namespace: swapNamespace,
					Labels:      map[string]string{"conformance.topoconf/host": host, "kueue.x-k8s.io/podset": slot.podSet},
					Annotations: map[string]string{kueue.WorkloadAnnotation: s.wlKey.Name},
				},
				Spec: ps.Template.Spec,
			}
			for k, v := range ps.Template.Annotations {
				pod.Annotations[k] = v
			}
			pod.Spec.Tolerations = append(slices.Clone(pod.Spec.Tolerations), s.flavor.Spec.Tolerations...)
			switch state {
			case "Gated":
				pod.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: kueue.TopologySchedulingGate}}
				pod.Status.Phase = corev1.PodPending
			case "Pending":
				pod.Spec.NodeName = host
				pod.Status.Phase = corev1.PodPending
			case "Terminated":
				pod.Spec.NodeName = host
				pod.Status.Phase = corev1.PodFailed
			default:
				pod.Spec.NodeName = host
				pod.Status.Phase = corev1.PodRunning
			}
			if state == "Terminating" {
				pod.Finalizers = []string{"conformance.topoconf/hold"}
			}
			status := pod.Status
			if err := s.cl.Create(s.ctx, pod); err != nil {
				return err
			}
			pod.Status = status
			if err := s.cl.Status().Update(s.ctx, pod); err != nil {
				return err
			}
			if state == "Terminating" {
				if err := s.cl.Delete(s.ctx, pod); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (s *swapSim) act(action map[string]any) {
	action["at"] = num(s.now)
	s.actions = append(s.actions, action)
}

func (s *swapSim) setClock() {
	s.clk.SetTime(secondsTime(s.now).Time)
}

func (s *swapSim) getNode(name string) *corev1.Node {
	var n corev1.Node
	if err := s.cl.Get(s.ctx, types.NamespacedName{Name: name}, &n); err != nil {
		return nil
	}
	return &n
}

// trigger names the branch of the node controller's Reconcile that marked
// the node: the node gone, no Ready condition, NotReady past the failure
// delay, NotReady with the workload's pods stopped, or a taint.
func (s *swapSim) trigger(host string) string {
	node := s.getNode(host)
	if node == nil {
		return "NodeDeleted"
	}
	ready := utiltas.GetNodeCondition(node, corev1.NodeReady)
	switch {
	case ready == nil:
		return "NoReadyCondition"
	case ready.Status != corev1.ConditionTrue:
		if s.now-timeSeconds(ready.LastTransitionTime) >= notReadyDelay && fixedTimeMarking() {
			return "NotReadyTimeout"
		}
		return "PodsNotRunning"
	}
	return "UntoleratedTaint"
}

func unhealthyNames(wl *kueue.Workload) []string {
	if wl == nil {
		return nil
	}
	return workload.UnhealthyNodeNames(wl)
}

// reconcile runs the node controller over every node of the assignment and
// every node the workload lists as unhealthy. The node event filter lets no
// event through with TASFailedNodeReplacement off.
func (s *swapSim) reconcile() error {
	if s.evicted || !features.Enabled(features.TASFailedNodeReplacement) {
		return nil
	}
	s.setClock()
	hosts := s.assignedNodeNames()
	for _, h := range unhealthyNames(s.workload()) {
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	for _, host := range hosts {
		before := s.workload()
		trigger := s.trigger(host)
		res, err := s.nodes.Reconcile(s.ctx, host)
		if res.RequeueAfter > 0 {
			s.requeueAt[host] = s.now + res.RequeueAfter.Seconds()
		} else {
			delete(s.requeueAt, host)
		}
		if err != nil {
			return fmt.Errorf("node controller, node %s: %w", host, err)
		}
		after := s.workload()
		if s.noteEviction(before, after, func() {
			s.act(map[string]any{"type": "NodeFailed", "node": host, "trigger": trigger})
		}) {
			return nil
		}
		was, is := unhealthyNames(before), unhealthyNames(after)
		switch {
		case !slices.Contains(was, host) && slices.Contains(is, host):
			s.act(map[string]any{"type": "NodeFailed", "node": host, "trigger": trigger})
			if trigger == "NotReadyTimeout" {
				s.usedFixedTime = true
			}
		case slices.Contains(was, host) && !slices.Contains(is, host):
			s.act(map[string]any{"type": "NodeRecovered", "node": host})
		}
		if !equalStatus(before, after) {
			s.workloadChanged()
		}
	}
	return nil
}

func equalStatus(a, b *kueue.Workload) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, _ := json.Marshal(a.Status)
	y, _ := json.Marshal(b.Status)
	return string(x) == string(y)
}

// noteEviction records an eviction that happened between before and after.
func (s *swapSim) noteEviction(before, after *kueue.Workload, first func()) bool {
	if after == nil || !isEvicted(after) || (before != nil && isEvicted(before)) {
		return false
	}
	if first != nil {
		first()
		if n := len(s.actions); n > 0 && s.actions[n-1]["trigger"] == "NotReadyTimeout" {
			s.usedFixedTime = true
		}
	}
	cond := apimeta.FindStatusCondition(after.Status.Conditions, kueue.WorkloadEvicted)
	s.evicted = true
	s.act(map[string]any{"type": "Evicted", "reason": cond.Reason, "message": cond.Message})
	return true
}

// secondPass runs the scheduler once when the workload is queued for its
// second pass: the queue's backoff has passed by the next instant.
func (s *swapSim) secondPass() error {
	if s.evicted {
		return nil
	}
	wl := s.workload()
	if wl == nil || !workload.NeedsSecondPass(wl) {
		return nil
	}
	s.setClock()
	s.queues.QueueSecondPassIfNeeded(s.ctx, wl.DeepCopy(), 0)
	s.queueClk.Step(secondPassSteps)
	node := wl.Status.UnhealthyNodes[0].Name
	info := workload.NewInfo(wl.DeepCopy())
	info.ClusterQueue = swapCQ
	mode, message, err := s.sched.ConformanceNominate(s.ctx, *info)
	if err != nil {
		return err
	}
	before := wl
	oldHosts := s.assignedHosts()
	s.sched.ConformanceSchedule(s.ctx)
	after := s.workload()
	if s.noteEviction(before, after, func() { s.replacementFailed(node, mode, message) }) {
		return nil
	}
	if workload.HasUnhealthyNodes(after) || mode != "Fit" {
		s.replacementFailed(node, mode, message)
		return nil
	}
	// Replaced: the hosts that gained pods, in the new assignment's order.
	oldCount := map[string]int32{}
	for _, h := range oldHosts {
		if h.host != node {
			oldCount[h.podSet+"/"+h.host] += h.count
		}
	}
	var replacement []string
	gained := map[string]bool{}
	for _, h := range s.assignedHosts() {
		key := h.podSet + "/" + h.host
		if h.count > oldCount[key] {
			if !slices.Contains(replacement, h.host) {
				replacement = append(replacement, h.host)
			}
			gained[h.host] = true
		}
		oldCount[key] -= h.count
	}
	s.act(map[string]any{"type": "NodeReplaced", "node": node, "replacement": orEmpty(replacement)})
	// The job's new pods start on the replacement nodes.
	for _, h := range replacement {
		if err := s.setPods(h, "Running"); err != nil {
			return err
		}
	}
	s.workloadChanged()
	return nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// replacementFailed reads the flavor assigner's message for the podset the
// replacement failed in.
func (s *swapSim) replacementFailed(node, mode, message string) {
	text := message
	if i := strings.Index(text, ": "); strings.HasPrefix(text, "couldn't assign flavors to pod set ") && i >= 0 {
		text = text[i+2:]
	}
	reason := ""
	switch {
	case strings.HasPrefix(text, "Cannot replace the node, because the existing topologyAssignment is invalid"):
		reason = "StaleAssignment"
	case strings.HasPrefix(text, "cannot find replacement assignment for unhealthy node"):
		reason = "NoReplacement"
	default:
		if r, known := notFitReason(text); known {
			reason = r
		}
	}
	if reason == "" {
		reason = "Unclassified:" + mode
	}
	s.act(map[string]any{"type": "ReplacementFailed", "node": node, "reason": reason, "message": text})
}

// ---- the timeline

type timer struct {
	at   float64
	kind string
	key  string
	host string
}

// evictionDelay is when the taint eviction controller evicts the pods of
// the workload on host for a NoExecute taint, counted from the taint: the
// shortest tolerationSeconds among the pods' matching tolerations, at once
// without one; -1 when every pod tolerates it for good.
func (s *swapSim) evictionDelay(host string, taint corev1.Taint) float64 {
	delay := -1.0
	for _, h := range s.assignedHosts() {
		if h.host != host {
			continue
		}
		in := s.podSetInput(h.podSet)
		tolerations := append(slices.Clone(in.Tolerations), s.flavor.Spec.Tolerations...)
		if in.Template != nil {
			tolerations = append(slices.Clone(in.Template.Spec.Tolerations), s.flavor.Spec.Tolerations...)
		}
		var matching []corev1.Toleration
		for _, t := range tolerations {
			if t.ToleratesTaint(s.log, &taint, false) {
				matching = append(matching, t)
			}
		}
		if len(matching) == 0 {
			return 0
		}
		forever := false
		least := math.Inf(1)
		for _, t := range matching {
			if t.TolerationSeconds == nil {
				forever = true
				break
			}
			least = math.Min(least, math.Max(0, float64(*t.TolerationSeconds)))
		}
		if forever {
			continue
		}
		if delay < 0 || least < delay {
			delay = least
		}
	}
	return delay
}

func (s *swapSim) progressing(host string) bool {
	st := s.podStates[host]
	return st == "Running" || st == "Pending"
}

func (s *swapSim) timers() []timer {
	var out []timer
	var nodes corev1.NodeList
	_ = s.cl.List(s.ctx, &nodes)
	for _, node := range nodes.Items {
		host := node.Name
		if ready := utiltas.GetNodeCondition(&node, corev1.NodeReady); ready != nil && ready.Status != corev1.ConditionTrue {
			ltt := timeSeconds(ready.LastTransitionTime)
			key := fmt.Sprintf("notready/%s/%v", host, ltt)
			at := ltt + notReadyDelay
			if !s.fired[key] && at >= s.now {
				out = append(out, timer{at, "notready", key, host})
			}
		}
		if s.evictions && s.progressing(host) {
			for _, t := range node.Spec.Taints {
				if t.Effect != corev1.TaintEffectNoExecute {
					continue
				}
				delay := s.evictionDelay(host, t)
				if delay < 0 {
					continue
				}
				at := s.taintAdded[taintKey{host, t.Key, t.Value, t.Effect}] + delay
				key := fmt.Sprintf("evict/%s/%s/%s/%s/%v", host, t.Key, t.Value, t.Effect, at)
				if !s.fired[key] {
					out = append(out, timer{math.Max(at, s.now), "evict", key, host})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

func (s *swapSim) fire(t timer) error {
	s.fired[t.key] = true
	if t.kind == "evict" && s.progressing(t.host) {
		if err := s.setPods(t.host, "Terminating"); err != nil {
			return err
		}
		s.act(map[string]any{"type": "PodsEvicted", "node": t.host})
	}
	return nil
}

func (s *swapSim) fireDueNow() error {
	for range 100 {
		var due []timer
		for _, t := range s.timers() {
			if t.at <= s.now {
				due = append(due, t)
			}
		}
		if len(due) == 0 {
			return nil
		}
		for _, t := range due {
			if err := s.fire(t); err != nil {
				return err
			}
		}
		if err := s.reconcile(); err != nil {
			return err
		}
	}
	return nil
}

func (s *swapSim) passInstant() error {
	if err := s.secondPass(); err != nil {
		return err
	}
	if err := s.reconcile(); err != nil {
		return err
	}
	return s.fireDueNow()
}

func (s *swapSim) advanceTo(until float64) error {
	for {
		var pending []timer
		for _, t := range s.timers() {
			if t.at <= until {
				pending = append(pending, t)
			}
		}
		if len(pending) == 0 {
			break
		}
		at := pending[0].at
		s.now = math.Max(s.now, at)
		for _, t := range pending {
			if t.at == at {
				if err := s.fire(t); err != nil {
					return err
				}
			}
		}
		if err := s.reconcile(); err != nil {
			return err
		}
		if err := s.fireDueNow(); err != nil {
			return err
		}
		if s.now < until {
			if err := s.passInstant(); err != nil {
				return err
			}
		}
	}
	s.now = math.Max(s.now, until)
	return nil
}

// apply changes the cluster as the event says; a node change goes through
// the node controller's event filter, which keeps the TAS cache's nodes.
func (s *swapSim) apply(e swapEvent, i int) *answer {
	bad := func(format string, args ...any) *answer {
		a := invalid(format, args...)
		return &a
	}
	s.setClock()
	switch e.Type {
	case "Wait":
		return nil
	case "NodeAdded":
		node, err := decodeTimedNode(e.NodeObject)
		if err != nil || len(e.NodeObject) == 0 || string(e.NodeObject) == "null" {
			return bad("events[%d].nodeObject: a Node is required", i)
		}
		if err := createWithStatus(s.ctx, s.cl, node, nil); err != nil {
			return bad("events[%d].nodeObject: %v", i, err)
		}
		s.nodes.Created(node)
		for _, t := range node.Spec.Taints {
			s.taintAdded[taintKey{node.Name, t.Key, t.Value, t.Effect}] = s.now
		}
		return nil
	case "PodsRunning", "PodsTerminating", "PodsTerminated":
		if e.Node == "" {
			return bad("events[%d].node: required", i)
		}
		state := strings.TrimPrefix(e.Type, "Pods")
		if err := s.setPods(e.Node, state); err != nil {
			a := failure("fake client: pods", err)
			return &a
		}
		return nil
	case "NodeNotReady", "NodeReady", "NodeReadyConditionRemoved", "NodeDeleted", "NodeTainted", "NodeUntainted",
		"NodeCordoned", "NodeUncordoned":
	default:
		return bad("events[%d].type: unknown event type %q", i, e.Type)
	}
	if e.Node == "" {
		return bad("events[%d].node: required", i)
	}
	old := s.getNode(e.Node)
	if old == nil {
		if e.Type == "NodeDeleted" {
			return nil
		}
		return bad("events[%d].node: no node %q at that time", i, e.Node)
	}
	node := old.DeepCopy()
	switch e.Type {
	case "NodeDeleted":
		if err := s.cl.Delete(s.ctx, node); err != nil {
			a := failure("fake client: node", err)
			return &a
		}
		s.nodes.Deleted(old)
		return nil
	case "NodeNotReady", "NodeReady":
		status := corev1.ConditionTrue
		if e.Type == "NodeNotReady" {
			status = corev1.ConditionFalse
			if e.Status != "" {
				status = corev1.ConditionStatus(e.Status)
			}
		}
		found := false
		for j := range node.Status.Conditions {
			c := &node.Status.Conditions[j]
			if c.Type != corev1.NodeReady {
				continue
			}
			found = true
			if c.Status != status {
				c.Status = status
				c.LastTransitionTime = secondsTime(s.now)
			}
		}
		if !found {
			node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeReady, Status: status,
				LastTransitionTime: secondsTime(s.now)})
		}
	case "NodeReadyConditionRemoved":
		node.Status.Conditions = slices.DeleteFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == corev1.NodeReady })
	case "NodeTainted", "NodeUntainted":
		if e.Taint == nil || e.Taint.Key == "" || e.Taint.Effect == "" {
			return bad("events[%d].taint: {key, value, effect} required", i)
		}
		t := *e.Taint
		if e.Type == "NodeTainted" {
			exists := slices.ContainsFunc(node.Spec.Taints, func(x corev1.Taint) bool {
				return x.Key == t.Key && x.Value == t.Value && x.Effect == t.Effect
			})
			if !exists {
				node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
				s.taintAdded[taintKey{node.Name, t.Key, t.Value, t.Effect}] = s.now
			}
		} else {
			node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(x corev1.Taint) bool { return x.Key == t.Key && x.Effect == t.Effect })
		}
	case "NodeCordoned":
		node.Spec.Unschedulable = true
	case "NodeUncordoned":
		node.Spec.Unschedulable = false
	}
	// The fake client keeps status as a subresource: Update writes the spec
	// (and reads back the stored status), Status().Update the status.
	status := *node.Status.DeepCopy()
	if err := s.cl.Update(s.ctx, node); err != nil {
		a := failure("fake client: node", err)
		return &a
	}
	node.Status = status
	if err := s.cl.Status().Update(s.ctx, node); err != nil {
		a := failure("fake client: node status", err)
		return &a
	}
	s.nodes.Updated(old, s.getNode(e.Node))
	return nil
}

func (s *swapSim) state() map[string]any {
	wl := s.workload()
	out := map[string]any{"at": num(s.now), "unhealthyNodes": orEmpty(unhealthyNames(wl)), "admitted": !s.evicted,
		"evicted": s.evicted, "requeued": nil, "eviction": nil}
	if s.evicted && wl != nil {
		// v0.17.0 requeues every evicted workload (no pod-owned exception).
		out["requeued"] = true
		cond := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted)
		out["eviction"] = map[string]any{"reason": cond.Reason, "message": cond.Message}
	}
	byName := map[string]*kueue.PodSetAssignment{}
	if wl != nil && wl.Status.Admission != nil {
		for i := range wl.Status.Admission.PodSetAssignments {
			psa := &wl.Status.Admission.PodSetAssignments[i]
			byName[string(psa.Name)] = psa
		}
	}
	var podSets []map[string]any
	for _, p := range s.podSets {
		var ta any
		if psa := byName[p.Name]; psa != nil && psa.TopologyAssignment != nil {
			ta = renderAssignment(utiltas.InternalFrom(psa.TopologyAssignment))
		}
		podSets = append(podSets, map[string]any{"name": p.Name, "topologyAssignment": ta})
	}
	out["podSets"] = podSets
	actions := s.actions
	if actions == nil {
		actions = []map[string]any{}
	}
	out["actions"] = actions
	// The delay the node controller last asked for, per node of the workload,
	// as left at this state's time.
	requeue := map[string]any{}
	if !s.evicted {
		watched := s.assignedNodeNames()
		for _, h := range unhealthyNames(wl) {
			if !slices.Contains(watched, h) {
				watched = append(watched, h)
			}
		}
		for _, h := range watched {
			if at, ok := s.requeueAt[h]; ok && at > s.now {
				requeue[h] = num(at - s.now)
			}
		}
	}
	out["requeueAfter"] = requeue
	// A workload finishes only through a WorkloadFinished event, which this
	// shim answers unsupported, so every state it reaches is unfinished.
	out["finished"] = false
	return out
}

func (s *swapSim) run(rawEvents []json.RawMessage) answer {
	events := make([]swapEvent, len(rawEvents))
	for i, raw := range rawEvents {
		if err := json.Unmarshal(raw, &events[i]); err != nil {
			return invalid("events[%d]: %v", i, err)
		}
	}
	orFail := func(err error) answer { return failure("the release's controllers failed", err) }
	if err := s.reconcile(); err != nil {
		return orFail(err)
	}
	if err := s.fireDueNow(); err != nil {
		return orFail(err)
	}
	if len(events) == 0 || (events[0].At != nil && *events[0].At != 0) {
		if err := s.passInstant(); err != nil {
			return orFail(err)
		}
	}
	states := []map[string]any{}
	last := 0.0
	for i, e := range events {
		at := last
		if e.At != nil {
			at = *e.At
		}
		if at < last {
			return invalid("events[%d].at: a number of seconds, not below the previous event's", i)
		}
		if err := s.advanceTo(at); err != nil {
			return orFail(err)
		}
		if bad := s.apply(e, i); bad != nil {
			return *bad
		}
		if err := s.reconcile(); err != nil {
			return orFail(err)
		}
		if err := s.fireDueNow(); err != nil {
			return orFail(err)
		}
		nextAt := -1.0
		if i+1 < len(events) {
			nextAt = at
			if events[i+1].At != nil {
				nextAt = *events[i+1].At
			}
		}
		if nextAt != at {
			if err := s.passInstant(); err != nil {
				return orFail(err)
			}
		}
		states = append(states, s.state())
		s.actions = nil
		last = at
	}
	// Only a release without the gate has the 30 s marking built in.
	if ft, missing := contractOnly[fixedTimeGate]; s.usedFixedTime && missing && !ft && features.Enabled(features.TASReplaceNodeOnPodTermination) {
		return unsupported("Kueue %s marks a node failed 30 s after it turns NotReady whatever its pods (the case has %s off, which the release cannot do)", linkedVersion(), fixedTimeGate)
	}
	return ok(map[string]any{"states": states})
}

// podOwned: exactly one owner, a core/v1 Pod, and not a pod group.
func podOwned(owners []metav1.OwnerReference, annotations map[string]string) bool {
	return len(owners) == 1 && owners[0].Kind == "Pod" && (owners[0].APIVersion == "v1" || owners[0].APIVersion == "") &&
		annotations["kueue.x-k8s.io/is-group-workload"] != "true"
}

// createWithStatus creates a Node and then writes its status, which the
// fake client keeps apart as a subresource.
func createWithStatus(ctx context.Context, cl client.Client, node *corev1.Node, _ func()) error {
	status := *node.Status.DeepCopy()
	if err := cl.Create(ctx, node); err != nil {
		return err
	}
	node.Status = status
	return cl.Status().Update(ctx, node)
}

// notDrivenYet answers unsupported for the parts of the node controller's
// contract the shim does not build objects for yet: late pods (created with
// the hostname node selector, not bound), stray pods outside the assignment,
// a workload that finishes, and a topology without a hostname level.
func notDrivenYet(raw json.RawMessage, hs hotSwapInput) *answer {
	reason := ""
	switch {
	case len(hs.Workload.StrayPods) > 0:
		reason = "stray pods (workload.strayPods)"
	case slices.Contains(mapValues(hs.Workload.PodStates), "Late"):
		reason = "late pods (podStates Late)"
	}
	if reason == "" {
		var probe struct {
			Events []struct {
				Type string `json:"type"`
			} `json:"events"`
		}
		_ = json.Unmarshal(raw, &probe)
		for _, e := range probe.Events {
			if e.Type == "WorkloadFinished" {
				reason = "a finishing workload (WorkloadFinished)"
			}
		}
	}
	if reason == "" {
		return nil
	}
	u := unsupported("the shim does not build the objects for %s yet", reason)
	return &u
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// fixedTimeMarking: whether the release marks a node 30 s after it turns
// NotReady whatever its pods. A release without the gate always does; one
// with it, when the gate is on or pods are not looked at (RNO off).
func fixedTimeMarking() bool {
	if _, missing := contractOnly[fixedTimeGate]; missing {
		return true
	}
	return utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(fixedTimeGate)) ||
		!features.Enabled(features.TASReplaceNodeOnPodTermination)
}
