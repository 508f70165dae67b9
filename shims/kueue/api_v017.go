//go:build !kueue_main

package main

// The upstream entry points whose form changed after v0.17.0, in the form
// v0.17.0 has; api_main.go gives the later form (build tag kueue_main).

import (
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	tascontroller "sigs.k8s.io/kueue/pkg/controller/tas"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/workload"
)

// findAssignments runs the release's placement for a flavor's podsets.
func findAssignments(snap *schdcache.TASFlavorSnapshot, requests schdcache.FlavorTASRequests, options ...schdcache.FindTopologyAssignmentsOption) schdcache.TASAssignmentsResult {
	return snap.FindTopologyAssignmentsForFlavor(requests, options...)
}

// quietRecorder drops the events the controllers record (v0.17.0 records
// through k8s.io/client-go/tools/record).
type quietRecorder struct{}

func (quietRecorder) Event(runtime.Object, string, string, string)          {}
func (quietRecorder) Eventf(runtime.Object, string, string, string, ...any) {}
func (quietRecorder) AnnotatedEventf(runtime.Object, map[string]string, string, string, string, ...any) {
}

var kueueGroupVersion = kueue.GroupVersion

// The release build drives every feature it claims.
var omittedFeatures []string

func requestNames(r resources.Requests) []corev1.ResourceName {
	var names []corev1.ResourceName
	for name := range r {
		names = append(names, name)
	}
	return names
}

func requestsToList(r resources.Requests) corev1.ResourceList { return r.ToResourceList() }

func emptyRequests() resources.Requests { return resources.Requests{} }

func isEvicted(wl *kueue.Workload) bool { return workload.IsEvicted(wl) }

// nonTASPodFilter is the non-TAS usage controller's event filter.
func nonTASPodFilter() interface {
	Create(event.TypedCreateEvent[*corev1.Pod]) bool
} {
	return &tascontroller.NonTasUsageReconciler{}
}

func updateNonTASUsage(cache *schdcache.Cache, pod *corev1.Pod, log logr.Logger) {
	cache.TASCache().Update(pod, log)
}
