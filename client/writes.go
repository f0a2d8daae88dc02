package client

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/writes"
)

// recordWrite tells the reconcile running with ctx, if any, that it wrote
// obj, as the server returned it: its controller then keeps the next
// reconcile of the same request from starting before the client's cache
// shows the write (see the package documentation). An uncached client
// records nothing: its reads are live.
func (c *Client[T]) recordWrite(ctx context.Context, obj object.Object) {
	if inf, err := c.current(); err == nil && inf != nil {
		writes.Record(ctx, writes.Write{Cache: inf,
			Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID(),
			ResourceVersion: obj.GetResourceVersion(), Object: obj})
	}
}

// recordDelete records the deletion of namespace/name, whose answer was
// res: the object itself when the server keeps it for its finalizers (a
// write like any other), else the deleted object or a Status that names
// its UID, or nothing; then the cached object's UID stands in.
func (c *Client[T]) recordDelete(ctx context.Context, namespace, name string, res runtime.Object) {
	inf, err := c.current()
	if err != nil || inf == nil {
		return
	}
	var uid types.UID
	switch r := res.(type) {
	case *metav1.Status:
		if r.Details != nil {
			uid = r.Details.UID
		}
	case object.Object:
		if r.GetDeletionTimestamp() != nil && len(r.GetFinalizers()) > 0 {
			c.recordWrite(ctx, r) // still there, being finalized
			return
		}
		uid = r.GetUID()
	}
	if uid == "" {
		if cached, ok := inf.Cache().Get(namespace, name); ok {
			uid = cached.GetUID()
		} else if w, ok := writes.Find(ctx, inf, namespace, name); ok {
			uid = w.UID // created by this reconcile, and not cached yet
		}
	}
	writes.Record(ctx, writes.Write{Cache: inf, Namespace: namespace, Name: name, UID: uid, Deleted: true})
}
