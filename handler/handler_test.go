package handler

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
)

type recordQueue []string

func (q *recordQueue) Add(r reconcile.Request) { *q = append(*q, r.String()) }

func ref(apiVersion, kind, name string, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, Controller: &controller}
}

func rs(name string, owners ...metav1.OwnerReference) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, OwnerReferences: owners}}
}

func TestEnqueueOwnerMatchesGroupKind(t *testing.T) {
	deployments := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	child := rs("web-abc",
		ref("apps/v1", "Deployment", "web", true),
		ref("apps/v1beta1", "Deployment", "web-old-version", false), // version is ignored
		ref("extensions.example.com/v1", "Deployment", "other-group", false),
		ref("apps/v1", "StatefulSet", "other-kind", false),
		ref("v1", "Deployment", "core-group", false),
	)
	for _, tc := range []struct {
		name string
		h    EventHandler[*appsv1.ReplicaSet]
		want []string
	}{
		{"any owner of the group/kind", EnqueueOwner[*appsv1.ReplicaSet](deployments), []string{"ns/web", "ns/web-old-version"}},
		{"controller only", EnqueueOwner[*appsv1.ReplicaSet](deployments, OnlyController()), []string{"ns/web"}},
		{"cluster-scoped owner", EnqueueOwner[*appsv1.ReplicaSet](deployments, OnlyController(), OwnerIsClusterScoped()), []string{"web"}},
	} {
		var q recordQueue
		tc.h.Create(context.Background(), event.Create[*appsv1.ReplicaSet]{Object: child}, &q)
		if !slices.Equal(q, tc.want) {
			t.Errorf("%s: enqueued %v, want %v", tc.name, q, tc.want)
		}
	}
}

func TestEnqueueOwnerUpdateReachesOldAndNewOwner(t *testing.T) {
	var q recordQueue
	h := EnqueueOwner[*appsv1.ReplicaSet](schema.GroupKind{Group: "apps", Kind: "Deployment"})
	h.Update(context.Background(), event.Update[*appsv1.ReplicaSet]{
		ObjectOld: rs("x", ref("apps/v1", "Deployment", "before", true)),
		ObjectNew: rs("x", ref("apps/v1", "Deployment", "after", true)),
	}, &q)
	if !slices.Equal(q, []string{"ns/before", "ns/after"}) {
		t.Fatalf("got %v", q)
	}
}

func TestEnqueueObject(t *testing.T) {
	ctx := context.Background()
	h := EnqueueObject[*corev1.ConfigMap]()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	var q recordQueue
	h.Create(ctx, event.Create[*corev1.ConfigMap]{Object: cm}, &q)
	h.Update(ctx, event.Update[*corev1.ConfigMap]{ObjectOld: cm, ObjectNew: cm}, &q)
	h.Delete(ctx, event.Delete[*corev1.ConfigMap]{Key: types.NamespacedName{Namespace: "ns", Name: "gone"}, DeleteStateUnknown: true}, &q)
	h.Create(ctx, event.Create[*corev1.ConfigMap]{}, &q) // nil object: skipped, no panic
	if want := []string{"ns/a", "ns/a", "ns/gone"}; !slices.Equal(q, want) {
		t.Fatalf("got %v, want %v", q, want)
	}
}

func TestEnqueueFuncAndPredicates(t *testing.T) {
	ctx := context.Background()
	toApp := EnqueueFunc(func(_ context.Context, cm *corev1.ConfigMap) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: cm.Namespace, Name: cm.Labels["app"]}}}
	})
	h := Filtered(toApp, predicate.LabelsChanged[*corev1.ConfigMap]())
	old := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cfg", Labels: map[string]string{"app": "web"}}}
	same := old.DeepCopy()
	moved := old.DeepCopy()
	moved.Labels["app"] = "api"
	var q recordQueue
	h.Update(ctx, event.Update[*corev1.ConfigMap]{ObjectOld: old, ObjectNew: same}, &q) // filtered
	h.Update(ctx, event.Update[*corev1.ConfigMap]{ObjectOld: old, ObjectNew: moved}, &q)
	if want := []string{"ns/web", "ns/api"}; !slices.Equal(q, want) {
		t.Fatalf("got %v, want %v", q, want)
	}
}

// optsRecorder records the reasons and priority of each add.
type optsRecorder struct{ adds []AddOpts }

func (q *optsRecorder) Add(reconcile.Request) { q.adds = append(q.adds, AddOpts{}) }
func (q *optsRecorder) AddWithOpts(o AddOpts, _ reconcile.Request) {
	q.adds = append(q.adds, o)
}

func TestHandlersNameTheirReasons(t *testing.T) {
	ctx := context.Background()
	child := rs("web-abc", ref("apps/v1", "Deployment", "web", true))
	toWeb := func(context.Context, *appsv1.ReplicaSet) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "web"}}}
	}
	owner := EnqueueOwner[*appsv1.ReplicaSet](schema.GroupKind{Group: "apps", Kind: "Deployment"})
	for _, tc := range []struct {
		name    string
		deliver func(q Queue)
		want    reconcile.Reasons
	}{
		{"EnqueueObject delete by key", func(q Queue) {
			EnqueueObject[*appsv1.ReplicaSet]().Delete(ctx, event.Delete[*appsv1.ReplicaSet]{Key: types.NamespacedName{Namespace: "ns", Name: "x"}}, q)
		}, reconcile.PrimaryDeleted},
		{"EnqueueObject generic", func(q Queue) {
			EnqueueObject[*appsv1.ReplicaSet]().Generic(ctx, event.Generic[*appsv1.ReplicaSet]{Object: child}, q)
		}, reconcile.External},
		{"EnqueueOwner create", func(q Queue) { owner.Create(ctx, event.Create[*appsv1.ReplicaSet]{Object: child}, q) }, reconcile.OwnedCreated},
		{"EnqueueOwner delete", func(q Queue) { owner.Delete(ctx, event.Delete[*appsv1.ReplicaSet]{Object: child}, q) }, reconcile.OwnedDeleted},
		{"EnqueueFunc update", func(q Queue) {
			EnqueueFunc(toWeb).Update(ctx, event.Update[*appsv1.ReplicaSet]{ObjectOld: child, ObjectNew: child}, q)
		}, reconcile.WatchedUpdated},
	} {
		var q optsRecorder
		tc.deliver(&q)
		if len(q.adds) == 0 {
			t.Errorf("%s: nothing added", tc.name)
		}
		for _, o := range q.adds {
			if o.Reasons != tc.want || o.Priority != nil {
				t.Errorf("%s: added with reasons %v and priority %v, want %v and none", tc.name, o.Reasons, o.Priority, tc.want)
			}
		}
	}
}

func TestAtPriorityKeepsAHandlersOwn(t *testing.T) {
	own := 7
	h := AtPriority(Funcs[*appsv1.ReplicaSet]{DeleteFunc: func(_ context.Context, e event.Delete[*appsv1.ReplicaSet], q Queue) {
		AddWithOpts(q, AddOpts{Priority: &own}, reconcile.Request{NamespacedName: e.Key})
	}}, 3)
	var q optsRecorder
	h.Delete(context.Background(), event.Delete[*appsv1.ReplicaSet]{Key: types.NamespacedName{Name: "x"}}, &q)
	if len(q.adds) != 1 || q.adds[0].Priority == nil || *q.adds[0].Priority != own {
		t.Fatalf("adds %+v, want one at the handler's own priority %d", q.adds, own)
	}
	q.adds = nil
	h.Update(context.Background(), event.Update[*appsv1.ReplicaSet]{ObjectOld: rs("x"), ObjectNew: rs("x")}, &q) // no UpdateFunc
	if len(q.adds) != 0 {
		t.Fatalf("an event the handler ignores added %+v", q.adds)
	}
}
