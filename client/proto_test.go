package client_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
)

// A typed client of a built-in kind writes protobuf bodies and reads
// protobuf answers itself, on the paths client-go's typed clients use:
// every write, status writes and live reads included, reaches the server
// as sent and comes back as the server stored it; errors are API errors,
// and names client-go refuses are refused as client-go does.
func TestTypedClientSpeaksProtobufAsClientGo(t *testing.T) {
	ns := testkit.Namespace(t, "proto-")
	rec := &recorder{resource: "deployments"}
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.Wrap(rec.wrap)
	cl, err := cluster.New(cfg, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		t.Fatal(err)
	}
	f, err := informer.NewFactory(cl, informer.WithKind(appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind(), informer.KindOptions{Uncached: true}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.For[*appsv1.Deployment](f, ns)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(testkit.Env(t).Config)
	ctx := context.Background()
	same := func(step string, got *appsv1.Deployment) {
		t.Helper()
		want, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s returned\n%#v\nthe server has\n%#v", step, got, want)
		}
	}

	d, err := c.Create(ctx, testkit.Deployment(ns, "web"))
	if err != nil {
		t.Fatal(err)
	}
	same("Create", d)
	d.Spec.Replicas = ptr.To(int32(3))
	if d, err = c.Update(ctx, d); err != nil || *d.Spec.Replicas != 3 {
		t.Fatalf("Update: %v, %v", d, err)
	}
	same("Update", d)
	d.Status.ObservedGeneration = d.Generation
	if d, err = c.UpdateStatus(ctx, d); err != nil || d.Status.ObservedGeneration != d.Generation {
		t.Fatalf("UpdateStatus: %v, %v", d, err)
	}
	same("UpdateStatus", d)
	if d, err = c.Patch(ctx, ns, "web", types.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"yes"}}}`)); err != nil || d.Labels["patched"] != "yes" {
		t.Fatalf("Patch: %v, %v", d, err)
	}
	same("Patch", d)
	if d, err = c.PatchStatus(ctx, ns, "web", types.MergePatchType, []byte(`{"status":{"replicas":2}}`)); err != nil || d.Status.Replicas != 2 {
		t.Fatalf("PatchStatus: %v, %v", d, err)
	}
	same("PatchStatus", d)
	got, err := c.Get(ctx, ns, "web") // uncached: live
	if err != nil {
		t.Fatal(err)
	}
	same("Get", got)

	stale := got.DeepCopy()
	stale.ResourceVersion = "1"
	if _, err := c.Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Fatalf("Update of a stale object: %v, want a Conflict", err)
	}
	if _, err := c.Get(ctx, ns, "missing"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a missing object: %v, want NotFound", err)
	}
	for _, name := range []string{"a/b", "..", "%2f"} {
		bad := got.DeepCopy()
		bad.Name = name
		if _, err := c.Update(ctx, bad); err == nil || !strings.Contains(err.Error(), "invalid resource name") {
			t.Fatalf("Update of %q: %v, want client-go's invalid resource name", name, err)
		}
	}
	if _, err := c.Get(ctx, ns, ""); err == nil || !strings.Contains(err.Error(), "resource name may not be empty") {
		t.Fatalf("Get of no name: %v", err)
	}
	// An object of no namespace, as a reconciler that forgot to set one
	// writes, is refused before it is sent, as client-go refuses it, and
	// not sent to the path without a namespace, another resource's, whose
	// 404 would pass for the object's own NotFound.
	noNamespace := got.DeepCopy()
	noNamespace.Namespace = ""
	const emptyNamespace = "an empty namespace may not be set"
	if _, err := c.Create(ctx, noNamespace); err == nil || !strings.Contains(err.Error(), emptyNamespace) {
		t.Errorf("Create of an object of no namespace: %v, want client-go's %q", err, emptyNamespace)
	}
	if _, err := c.Update(ctx, noNamespace); err == nil || !strings.Contains(err.Error(), emptyNamespace) {
		t.Errorf("Update of an object of no namespace: %v, want client-go's %q", err, emptyNamespace)
	}
	if _, err := c.Live().Get(ctx, "", "web"); err == nil || !strings.Contains(err.Error(), emptyNamespace) {
		t.Errorf("Live().Get of no namespace: %v, want client-go's %q", err, emptyNamespace)
	}
	if err := c.Delete(ctx, "", "web"); err == nil || !strings.Contains(err.Error(), emptyNamespace) {
		t.Errorf("Delete of no namespace: %v, want client-go's %q", err, emptyNamespace)
	}
	if err := c.Delete(ctx, ns, "web"); err != nil {
		t.Fatal(err)
	}

	base := "/apis/apps/v1/namespaces/" + ns + "/deployments"
	pb := runtime.ContentTypeProtobuf
	want := []exchange{
		{"POST", base, pb, pb},
		{"PUT", base + "/web", pb, pb},
		{"PUT", base + "/web/status", pb, pb},
		{"PATCH", base + "/web", "application/merge-patch+json", pb},
		{"PATCH", base + "/web/status", "application/merge-patch+json", pb},
		{"GET", base + "/web", "", pb},
		{"PUT", base + "/web", pb, pb},     // the conflict
		{"GET", base + "/missing", "", pb}, // not found
		{"DELETE", base + "/web", pb, pb},
	}
	if got := rec.exchanges(); !reflect.DeepEqual(got, want) {
		t.Fatalf("requests\n%q\nwant\n%q", got, want)
	}
}
