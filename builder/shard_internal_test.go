package builder

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/shard"
)

type addsOf []reconcile.Request

func (a *addsOf) Add(req reconcile.Request) { *a = append(*a, req) }

// A deletion's uid is noted only when its request is queued: a deletion
// a predicate filters out leaves nothing behind.
func TestShardedDeletionNotedOnlyWhenQueued(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      handler.EventHandler[*corev1.ConfigMap]
		noted  bool
		queued int
	}{
		{"queued", handler.EnqueueObject[*corev1.ConfigMap](), true, 1},
		{"filtered", handler.Filtered(handler.EnqueueObject[*corev1.ConfigMap](),
			predicate.Funcs[*corev1.ConfigMap]{DeleteFunc: func(event.Delete[*corev1.ConfigMap]) bool { return false }}), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &uidKeys[*corev1.ConfigMap]{deleted: map[reconcile.Request]uint64{}}
			r := &remembering[*corev1.ConfigMap]{EventHandler: tc.h, k: k}
			key := types.NamespacedName{Namespace: "ns", Name: "gone"}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gone", UID: "u-1"}}
			var q addsOf
			r.Delete(context.Background(), event.Delete[*corev1.ConfigMap]{Key: key, Object: cm}, &q)
			h, noted := k.deleted[reconcile.Request{NamespacedName: key}]
			if noted != tc.noted || len(q) != tc.queued {
				t.Fatalf("noted %t, %d queued; want %t, %d", noted, len(q), tc.noted, tc.queued)
			}
			if noted && h != shard.Hash("u-1") {
				t.Fatalf("noted hash %x, want the uid's %x", h, shard.Hash("u-1"))
			}
		})
	}
}
