package leases_test

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/apiclient"
	"github.com/steadyctl/steady/internal/leases"
	"github.com/steadyctl/steady/internal/testkit"
)

// ringLabel is a label the tests select Leases by, as a shard ring does.
const ringLabel = "example.com/ring"

// exchange is one request to the API server as the transport saw it.
type exchange struct {
	method, path        string
	sent, accept, agent string // the request's Content-Type, Accept and User-Agent
	got                 string // the response's Content-Type
}

// recorder is a transport that records every exchange it carries.
type recorder struct {
	rt http.RoundTripper
	mu sync.Mutex
	ex []exchange
}

// wrap makes the recorder the transport over rt; for rest.Config.Wrap.
func (r *recorder) wrap(rt http.RoundTripper) http.RoundTripper { r.rt = rt; return r }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ex = append(r.ex, exchange{
		method: req.Method, path: req.URL.Path,
		sent: req.Header.Get("Content-Type"), accept: req.Header.Get("Accept"), agent: req.Header.Get("User-Agent"),
		got: resp.Header.Get("Content-Type"),
	})
	return resp, nil
}

func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ex)
}

// testLeaseOf is a Lease named name, held by name, labelled a member of
// ring.
func testLeaseOf(name, ring string) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ringLabel: ring}},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(name),
			LeaseDurationSeconds: ptr.To(int32(10)),
			RenewTime:            &metav1.MicroTime{Time: time.Now()},
		},
	}
}

// nextEvent returns w's next event, failing the test if none comes soon.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended")
		}
		return ev
	case <-time.After(10 * time.Second):
	}
	t.Fatal("no watch event within 10s")
	return watch.Event{}
}

// The Lease client against kube-apiserver: each operation a Ring or an
// elector uses, and the API server's errors as status errors that apierrors
// reads.
func TestLeaseClient(t *testing.T) {
	ns := testkit.Namespace(t, "leases-")
	ctx := context.Background()
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	lc, err := leases.New(cfg, httpClient(t, cfg), ns)
	if err != nil {
		t.Fatal(err)
	}

	// Create, then Get.
	a, err := lc.Create(ctx, testLeaseOf("a", "x"))
	if err != nil {
		t.Fatal(err)
	}
	if a.UID == "" || a.ResourceVersion == "" || a.Namespace != ns {
		t.Fatalf("created Lease: uid %q, resourceVersion %q, namespace %q: want them set by the server, in %s", a.UID, a.ResourceVersion, a.Namespace, ns)
	}
	got, err := lc.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != a.UID || got.ResourceVersion != a.ResourceVersion || ptr.Deref(got.Spec.HolderIdentity, "") != "a" || got.Labels[ringLabel] != "x" {
		t.Fatalf("Get: uid %s, resourceVersion %s, holder %v, labels %v: want the created Lease %s at %s", got.UID, got.ResourceVersion, got.Spec.HolderIdentity, got.Labels, a.UID, a.ResourceVersion)
	}
	if _, err := lc.Get(ctx, "absent"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of an absent Lease: %v: want NotFound", err)
	}

	// Update, then Update from the stale resourceVersion.
	got.Spec.HolderIdentity = ptr.To("a2")
	updated, err := lc.Update(ctx, got.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if updated.ResourceVersion == a.ResourceVersion || ptr.Deref(updated.Spec.HolderIdentity, "") != "a2" {
		t.Fatalf("Update: resourceVersion %s (was %s), holder %v: want a new resourceVersion and holder a2", updated.ResourceVersion, a.ResourceVersion, updated.Spec.HolderIdentity)
	}
	got.Spec.HolderIdentity = ptr.To("a3")
	_, err = lc.Update(ctx, got) // still at a's resourceVersion
	var status *apierrors.StatusError
	if !apierrors.IsConflict(err) || !errors.As(err, &status) {
		t.Fatalf("Update from a stale resourceVersion: %v (%T): want a Conflict status error", err, err)
	}

	// Delete on a uid precondition that does not hold.
	wrong := types.UID("not-" + string(a.UID))
	if err := lc.Delete(ctx, "a", metav1.Preconditions{UID: &wrong}); !apierrors.IsConflict(err) {
		t.Fatalf("Delete with uid %s, the Lease's being %s: %v: want a Conflict", wrong, a.UID, err)
	}
	if _, err := lc.Get(ctx, "a"); err != nil {
		t.Fatalf("the Lease after a Delete whose precondition failed: %v: want it kept", err)
	}

	// List by label selector.
	if _, err := lc.Create(ctx, testLeaseOf("b", "y")); err != nil {
		t.Fatal(err)
	}
	c, err := lc.Create(ctx, testLeaseOf("c", "x"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := lc.List(ctx, metav1.ListOptions{LabelSelector: ringLabel + "=x"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range list.Items {
		names = append(names, l.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"a", "c"}) || list.ResourceVersion == "" {
		t.Fatalf("List of ring x: %v at resourceVersion %q: want [a c] and a resourceVersion", names, list.ResourceVersion)
	}

	// Watch from the list: ring x's changes after it, in order, and none
	// of ring y's.
	w, err := lc.Watch(ctx, metav1.ListOptions{LabelSelector: ringLabel + "=x", ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	c.Spec.HolderIdentity = ptr.To("c2")
	if _, err := lc.Update(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Create(ctx, testLeaseOf("d", "y")); err != nil {
		t.Fatal(err)
	}
	if err := lc.Delete(ctx, "a", metav1.Preconditions{UID: &a.UID}); err != nil {
		t.Fatalf("Delete with the Lease's uid: %v", err)
	}
	for _, want := range []struct {
		typ    watch.EventType
		name   string
		holder string
	}{{watch.Modified, "c", "c2"}, {watch.Deleted, "a", "a2"}} {
		ev := nextEvent(t, w)
		l, ok := ev.Object.(*coordinationv1.Lease)
		if !ok || ev.Type != want.typ || l.Name != want.name || ptr.Deref(l.Spec.HolderIdentity, "") != want.holder {
			t.Fatalf("watch event %s %#v: want %s of Lease %s held by %s", ev.Type, ev.Object, want.typ, want.name, want.holder)
		}
	}
	if _, err := lc.Get(ctx, "a"); !apierrors.IsNotFound(err) {
		t.Fatalf("a deleted Lease: %v: want NotFound", err)
	}
}

// isMediaType reports whether contentType's media type is want.
func isMediaType(contentType, want string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == want
}

// A Client made from a cluster's config and HTTP client, as a Ring and the
// manager's elector make theirs, speaks protobuf both ways when the config
// names no content type, accepts JSON too, and says who it is.
func TestLeaseClientSpeaksProtobuf(t *testing.T) {
	ns := testkit.Namespace(t, "leases-")
	ctx := context.Background()
	rec := &recorder{}
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.Wrap(rec.wrap)
	c, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := leases.New(c.Config(), c.HTTPClient(), ns)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lc.Create(ctx, testLeaseOf("ring-a", "ring"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Get(ctx, "ring-a"); err != nil {
		t.Fatal(err)
	}
	w, err := lc.Watch(ctx, metav1.ListOptions{LabelSelector: ringLabel + "=ring", ResourceVersion: l.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := lc.Delete(ctx, "ring-a", metav1.Preconditions{UID: &l.UID}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, w); ev.Type != watch.Deleted {
		t.Fatalf("watch event %s: want Deleted", ev.Type)
	}

	ex := rec.exchanges()
	if len(ex) != 4 {
		t.Fatalf("%d requests: want 4 (create, get, watch, delete): %+v", len(ex), ex)
	}
	for _, e := range ex {
		if !isMediaType(e.got, runtime.ContentTypeProtobuf) {
			t.Errorf("%s %s: answered %q: want protobuf", e.method, e.path, e.got)
		}
		if e.method != http.MethodGet && !isMediaType(e.sent, runtime.ContentTypeProtobuf) {
			t.Errorf("%s %s: sent %q: want protobuf", e.method, e.path, e.sent)
		}
		if e.accept != apiclient.Accept {
			t.Errorf("%s %s: accepts %q: want %q", e.method, e.path, e.accept, apiclient.Accept)
		}
		if e.agent != rest.DefaultKubernetesUserAgent() {
			t.Errorf("%s %s: User-Agent %q: want %q", e.method, e.path, e.agent, rest.DefaultKubernetesUserAgent())
		}
	}
	if got := ex[2].got; !slices.Contains(mimeParams(got), "stream=watch") {
		t.Errorf("the watch answered %q: want a protobuf watch stream", got)
	}
}

// mimeParams returns contentType's parameters as key=value strings.
func mimeParams(contentType string) []string {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil
	}
	var out []string
	for k, v := range params {
		out = append(out, k+"="+v)
	}
	return out
}

// A config that names a content type keeps it: JSON here. New leaves the
// config as it was.
func TestLeaseClientKeepsConfiguredContentType(t *testing.T) {
	ns := testkit.Namespace(t, "leases-")
	ctx := context.Background()
	rec := &recorder{}
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.UserAgent = "ring-test"
	cfg.Wrap(rec.wrap)
	kept := rest.CopyConfig(cfg)
	lc, err := leases.New(cfg, httpClient(t, cfg), ns)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GroupVersion != nil || cfg.APIPath != kept.APIPath || cfg.NegotiatedSerializer != nil || cfg.AcceptContentTypes != kept.AcceptContentTypes {
		t.Errorf("New modified its config: group version %v, API path %q, serializer %v, accept %q", cfg.GroupVersion, cfg.APIPath, cfg.NegotiatedSerializer, cfg.AcceptContentTypes)
	}
	if _, err := lc.Create(ctx, testLeaseOf("a", "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Get(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	ex := rec.exchanges()
	if len(ex) != 2 {
		t.Fatalf("%d requests: want 2 (create, get): %+v", len(ex), ex)
	}
	for _, e := range ex {
		if !isMediaType(e.got, runtime.ContentTypeJSON) || (e.method == http.MethodPost && !isMediaType(e.sent, runtime.ContentTypeJSON)) {
			t.Errorf("%s %s: sent %q, answered %q: want JSON", e.method, e.path, e.sent, e.got)
		}
		if e.agent != "ring-test" {
			t.Errorf("%s %s: User-Agent %q: want the config's", e.method, e.path, e.agent)
		}
	}
}

// httpClient returns the HTTP client of cfg, as a cluster's would be.
func httpClient(t *testing.T, cfg *rest.Config) *http.Client {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return hc
}
