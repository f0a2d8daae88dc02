package bench

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cgworkqueue "k8s.io/client-go/util/workqueue"
	crevent "sigs.k8s.io/controller-runtime/pkg/event"
	crhandler "sigs.k8s.io/controller-runtime/pkg/handler"
	crpredicate "sigs.k8s.io/controller-runtime/pkg/predicate"
	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// updatePairs returns n old/new pairs whose generation changed, so they
// pass GenerationChanged, for distinct keys.
func updatePairs(n int) (olds, news []*corev1.ConfigMap) {
	for i := range n {
		old := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("cm-%04d", i), Generation: 1, ResourceVersion: "1"}}
		nw := old.DeepCopy()
		nw.Generation, nw.ResourceVersion = 2, "2"
		olds, news = append(olds, old), append(news, nw)
	}
	return olds, news
}

// BenchmarkEnqueuePath: an update event through GenerationChanged and the
// enqueue-the-object handler onto a rate-limiting work queue, as a
// controller wires them; steady's pieces against controller-runtime's on
// client-go's queue. Each event is then taken off the queue and marked done,
// as a worker would, so every Add is a real insertion rather than a
// duplicate of a waiting key.
func BenchmarkEnqueuePath(b *testing.B) {
	const keys = 1000
	olds, news := updatePairs(keys)
	ctx := context.Background()

	b.Run("impl=steady", func(b *testing.B) {
		q := workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[reconcile.Request]())
		defer q.ShutDown()
		h := handler.Filtered(handler.EnqueueObject[*corev1.ConfigMap](), predicate.GenerationChanged[*corev1.ConfigMap]())
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			h.Update(ctx, event.Update[*corev1.ConfigMap]{ObjectOld: olds[i%keys], ObjectNew: news[i%keys]}, q)
			r, _ := q.Get()
			q.Done(r)
		}
	})
	b.Run("impl=controller-runtime", func(b *testing.B) { // on client-go's queue
		q := cgworkqueue.NewTypedRateLimitingQueue(cgworkqueue.DefaultTypedControllerRateLimiter[crreconcile.Request]())
		defer q.ShutDown()
		p := crpredicate.TypedGenerationChangedPredicate[*corev1.ConfigMap]{}
		h := &crhandler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			e := crevent.TypedUpdateEvent[*corev1.ConfigMap]{ObjectOld: olds[i%keys], ObjectNew: news[i%keys]}
			if p.Update(e) {
				h.Update(ctx, e, q)
			}
			r, _ := q.Get()
			q.Done(r)
		}
	})
}
