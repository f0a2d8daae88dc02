package handler_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
)

type cm = *corev1.ConfigMap

// The handlers that read only names and owners say so, through the
// wrappers around them, as long as their predicates read only metadata
// too; a handler or predicate of one's own never does.
func TestReadsOnlyMetadata(t *testing.T) {
	byLabel, err := predicate.LabelSelector[cm](metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	own := predicate.NewFilter(func(c cm) bool { return c.Data["x"] != "" })
	mapped := handler.EnqueueFunc(func(context.Context, cm) []reconcile.Request { return nil })
	for _, tc := range []struct {
		name string
		h    handler.EventHandler[cm]
		want bool
	}{
		{"EnqueueObject", handler.EnqueueObject[cm](), true},
		{"EnqueueOwner", handler.EnqueueOwner[cm](schema.GroupKind{Kind: "Foo"}), true},
		{"AtPriority(EnqueueObject)", handler.AtPriority(handler.EnqueueObject[cm](), 5), true},
		{"Filtered(EnqueueObject, GenerationChanged, LabelSelector)", handler.Filtered(handler.EnqueueObject[cm](),
			predicate.GenerationChanged[cm](), byLabel), true},
		{"Filtered(EnqueueObject, Or(Not(LabelsChanged), AnnotationsChanged))", handler.Filtered(handler.EnqueueObject[cm](),
			predicate.Or(predicate.Not(predicate.LabelsChanged[cm]()), predicate.AnnotationsChanged[cm]())), true},
		{"Filtered(EnqueueObject, a filter of one's own)", handler.Filtered(handler.EnqueueObject[cm](), own), false},
		{"Filtered(EnqueueObject, And(ResourceVersionChanged, a filter))", handler.Filtered(handler.EnqueueObject[cm](),
			predicate.And(predicate.ResourceVersionChanged[cm](), own)), false},
		{"EnqueueFunc", mapped, false},
		{"AtPriority(EnqueueFunc)", handler.AtPriority(mapped, 5), false},
		{"Funcs", handler.Funcs[cm]{}, false},
	} {
		if got := handler.ReadsOnlyMetadata(tc.h); got != tc.want {
			t.Errorf("ReadsOnlyMetadata(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
