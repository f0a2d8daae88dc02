package builder_test

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// The builder's controller, run by the manager, takes a watch added while
// the manager runs and gives it back; its static watch is untouched.
func TestWatchAddedToARunningManagersController(t *testing.T) {
	ctx := context.Background()
	ns, cs := testkit.Namespace(t, "builder-"), testkit.Clientset(t)
	m := newManager(t, ns)
	r := recorder{ch: make(chan reconcile.Request, 100)}
	c, err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.Secret{})).Build(r)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, m.Start)
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "first"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect(t, "first") // running

	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cms, err := informer.For[*corev1.ConfigMap](m.Factory(), "", object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	src := controller.Informer(cms, handler.EnqueueObject[*corev1.ConfigMap]())
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
	r.expect(t, "settings")

	if err := c.Unwatch(src); err != nil {
		t.Fatal(err)
	}
	if !cms.Released() || slices.ContainsFunc(m.Factory().Stats(), func(s informer.Stats) bool { return s.Name == "configmaps/"+ns }) {
		t.Errorf("the manager's ConfigMap informer outlived its only watch (released %v, stats %+v)", cms.Released(), m.Factory().Stats())
	}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "second"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect(t, "second") // the static watch carries on
}
