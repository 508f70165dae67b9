package tas

// Conformance shim overlay (not part of Kueue): a way to build the TAS node
// controller's reconciler outside a manager, with the clock the caller
// drives. Laid over the release's copy by shims/kueue/build.sh, and over a
// local Kueue tree's copy by shims/kueue/build-local.sh; the recorder's type,
// which differs between the two, is in zz_conformance_recorder.go.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
)

// ConformanceNodeReconciler exposes the release's node reconciler: its
// Reconcile and the event filter that also keeps the TAS cache's nodes.
type ConformanceNodeReconciler struct{ r *nodeReconciler }

func NewConformanceNodeReconciler(c client.Client, recorder conformanceRecorder, cache *schdcache.Cache, clk clock.Clock) *ConformanceNodeReconciler {
	r := newNodeReconciler(c, recorder, cache, nil)
	r.clock = clk
	return &ConformanceNodeReconciler{r: r}
}

func (c *ConformanceNodeReconciler) Reconcile(ctx context.Context, name string) (ctrl.Result, error) {
	return c.r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: name}})
}

func (c *ConformanceNodeReconciler) Created(node *corev1.Node) bool {
	return c.r.Create(event.TypedCreateEvent[*corev1.Node]{Object: node})
}

func (c *ConformanceNodeReconciler) Updated(oldNode, newNode *corev1.Node) bool {
	return c.r.Update(event.TypedUpdateEvent[*corev1.Node]{ObjectOld: oldNode, ObjectNew: newNode})
}

func (c *ConformanceNodeReconciler) Deleted(node *corev1.Node) bool {
	return c.r.Delete(event.TypedDeleteEvent[*corev1.Node]{Object: node})
}
