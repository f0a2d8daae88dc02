package builder_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// Owns follows the controller references object.SetControllerReference
// writes: a change to an owned Secret reconciles its ConfigMap owner, and
// only it.
func TestOwnsFollowsSetControllerReference(t *testing.T) {
	ctx := context.Background()
	ns, cs := testkit.Namespace(t, "builder-"), testkit.Clientset(t)
	m := newManager(t, ns)
	r := recorder{ch: make(chan reconcile.Request, 100)}
	err := builder.ControllerManagedBy(m).
		For(builder.Kind(&corev1.ConfigMap{})).
		Owns(builder.Kind(&corev1.Secret{})).
		Complete(r)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, m.Start)

	parent, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "parent"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.expect(t, "parent") // For
	child := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "child"}}
	if err := object.SetControllerReference(parent, child, m.Cluster().Scheme()); err != nil {
		t.Fatal(err)
	}
	child, err = cs.CoreV1().Secrets(ns).Create(ctx, child, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.expectOnly(t, "parent") // the create

	child.StringData = map[string]string{"k": "v"}
	if _, err := cs.CoreV1().Secrets(ns).Update(ctx, child, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expectOnly(t, "parent") // the update
}

// expectOnly waits for the next reconcile and fails unless it is of name.
func (r recorder) expectOnly(t *testing.T, name string) {
	t.Helper()
	select {
	case req := <-r.ch:
		if req.Name != name {
			t.Fatalf("reconcile of %s, want %s", req, name)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no reconcile of %s", name)
	}
}
