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
	h := WithPredicates(toApp, predicate.LabelsChanged[*corev1.ConfigMap]())
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
