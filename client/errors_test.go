package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/informer"
)

func TestIgnoreWrappedByHand(t *testing.T) {
	cms := schema.GroupResource{Resource: "configmaps"}
	notFound := fmt.Errorf("reconciling shop/web: reading its config: %w", apierrors.NewNotFound(cms, "web"))
	exists := fmt.Errorf("making shop/web: %w", apierrors.NewAlreadyExists(cms, "web"))
	other := fmt.Errorf("reading shop/web: %w", apierrors.NewForbidden(cms, "web", errors.New("RBAC")))
	// A cache that could not sync may say why in a NotFound (an unknown
	// kind's list is a 404); it has still not said the object is absent.
	notSynced := fmt.Errorf("get configmaps shop/web: %w: %w", informer.ErrNotSynced, apierrors.NewNotFound(cms, ""))

	for _, tc := range []struct {
		name   string
		err    error
		ignore func(error) error
		want   error
	}{
		{"NotFound", notFound, client.IgnoreNotFound, nil},
		{"AlreadyExists", exists, client.IgnoreNotFound, exists},
		{"Forbidden", other, client.IgnoreNotFound, other},
		{"not synced", notSynced, client.IgnoreNotFound, notSynced},
		{"nil", nil, client.IgnoreNotFound, nil},
		{"AlreadyExists", exists, client.IgnoreAlreadyExists, nil},
		{"NotFound", notFound, client.IgnoreAlreadyExists, notFound},
		{"nil", nil, client.IgnoreAlreadyExists, nil},
	} {
		if got := tc.ignore(tc.err); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The errors of real reads and writes, each wrapped by the client with
// what it was doing.
func TestIgnoreErrorsOfRealCalls(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "there"}}
	if _, err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}

	_, errCached := c.Get(ctx, ns, "absent")
	_, errLive := c.Live().Get(ctx, ns, "absent")
	errDelete := c.Delete(ctx, ns, "absent")
	_, errModify := c.Modify(ctx, ns, "absent", func(*corev1.ConfigMap) error { return nil })
	_, errCreate := c.Create(ctx, cm)
	for name, err := range map[string]error{"cached Get": errCached, "Live().Get": errLive, "Delete": errDelete, "Modify": errModify} {
		if err == nil || client.IgnoreNotFound(err) != nil {
			t.Errorf("%s of an absent object: %v, want a NotFound IgnoreNotFound drops", name, err)
		}
		if client.IgnoreAlreadyExists(err) == nil {
			t.Errorf("%s: IgnoreAlreadyExists dropped %v", name, err)
		}
	}
	if errCreate == nil || client.IgnoreAlreadyExists(errCreate) != nil || client.IgnoreNotFound(errCreate) == nil {
		t.Errorf("Create of an existing object: %v, want an AlreadyExists only IgnoreAlreadyExists drops", errCreate)
	}

	// A read from a cache that never started is ErrNotSynced, not absence.
	unstarted, _ := newClient[*corev1.ConfigMap](t, ns)
	_, err := unstarted.Get(ctx, ns, "there")
	if !errors.Is(err, informer.ErrNotSynced) || client.IgnoreNotFound(err) == nil {
		t.Fatalf("Get from an unstarted cache: %v, want ErrNotSynced kept by IgnoreNotFound", err)
	}
}
