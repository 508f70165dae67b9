//go:build kueue_main

package main

// The upstream entry points whose form changed after v0.17.0, in the form of
// a later Kueue tree (build tag kueue_main, set by build-local.sh).

import (
	"context"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	tascontroller "sigs.k8s.io/kueue/pkg/controller/tas"
	"sigs.k8s.io/kueue/pkg/resources"
	workloadevict "sigs.k8s.io/kueue/pkg/workload/evict"
)

// findAssignments runs the tree's placement for a flavor's podsets; after
// v0.17 the placement takes a context.
func findAssignments(snap *schdcache.TASFlavorSnapshot, requests schdcache.FlavorTASRequests, options ...schdcache.FindTopologyAssignmentsOption) schdcache.TASAssignmentsResult {
	return snap.FindTopologyAssignmentsForFlavor(context.Background(), requests, options...)
}

// quietRecorder drops the events the controllers record (after v0.17 they
// record through k8s.io/client-go/tools/events).
type quietRecorder struct{}

func (quietRecorder) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {}

var kueueGroupVersion = kueue.SchemeGroupVersion

// capacity is answered unsupported for such a tree (capacity_main.go).
var omittedFeatures = []string{"kueue.tas.capacity"}

func requestNames(r resources.Requests) []corev1.ResourceName {
	var names []corev1.ResourceName
	r.ForEach(func(name corev1.ResourceName, _ int64) { names = append(names, name) })
	return names
}

// The formatter decides how a quantity is written back; the default one is
// what the cache uses when nothing registers binary-formatted resources.
func requestsToList(r resources.Requests) corev1.ResourceList {
	return r.ToResourceList(resources.NewResourceFormatter())
}

func emptyRequests() resources.Requests { return resources.NewRequests() }

func isEvicted(wl *kueue.Workload) bool { return workloadevict.IsEvicted(wl) }

// nonTASPodFilter is the pod usage controller's event filter (the non-TAS
// usage controller's successor); the cache itself leaves TAS pods out.
func nonTASPodFilter() interface {
	Create(event.TypedCreateEvent[*corev1.Pod]) bool
} {
	return &tascontroller.PodUsageReconciler{}
}

func updateNonTASUsage(cache *schdcache.Cache, pod *corev1.Pod, log logr.Logger) {
	cache.TASCache().UpdateNonTASUsage(pod, log)
}
