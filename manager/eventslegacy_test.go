package manager

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record/util"

	"github.com/steadyctl/steady/internal/testkit"
)

// The core/v1 sink against the API server: it creates, patches (strategic
// merge) and updates Events in their own namespaces, and its errors are the
// REST client's status errors, unwrapped, which is how the broadcaster
// tells an Event to create again, and a write to give up on, from one to
// retry.
func TestCoreV1SinkWritesInTheEventsNamespace(t *testing.T) {
	cfg := testkit.Env(t).Config
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := newCoreV1Sink(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	ns := testkit.Namespace(t, "mgr-")
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: "cm.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: ns, Name: "cm"},
		Reason:         "Synced", Message: "in sync", Type: corev1.EventTypeNormal, Count: 1,
		Source: corev1.EventSource{Component: "tester"},
	}
	created, err := sink.Create(ev)
	if err != nil {
		t.Fatal(err)
	}
	if created.Namespace != ns || created.ResourceVersion == "" {
		t.Fatalf("created %s/%s at resourceVersion %q", created.Namespace, created.Name, created.ResourceVersion)
	}
	patched, err := sink.Patch(ev, []byte(`{"count":2,"message":"in sync, again"}`))
	if err != nil {
		t.Fatal(err)
	}
	if patched.Count != 2 || patched.Message != "in sync, again" || patched.Reason != "Synced" {
		t.Fatalf("patched: count %d, message %q, reason %q", patched.Count, patched.Message, patched.Reason)
	}
	patched.Count = 3
	updated, err := sink.Update(patched)
	if err != nil {
		t.Fatal(err)
	}
	if updated.Count != 3 {
		t.Fatalf("updated: count %d, want 3", updated.Count)
	}
	stored, err := testkit.Clientset(t).CoreV1().Events(ns).Get(context.Background(), ev.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Count != 3 || stored.Message != "in sync, again" {
		t.Fatalf("stored: count %d, message %q", stored.Count, stored.Message)
	}

	gone := ev.DeepCopy()
	gone.Name = "cm.2"
	if _, err := sink.Patch(gone, []byte(`{"count":2}`)); !util.IsKeyNotFoundError(err) {
		t.Fatalf("patching a missing Event: %v (%T), want a *StatusError NotFound", err, err)
	}
	if _, err := sink.Create(ev); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating an Event again: %v, want AlreadyExists", err)
	} else if _, ok := err.(*apierrors.StatusError); !ok {
		t.Fatalf("creating an Event again: a %T, want a *StatusError, unwrapped", err)
	}
}
