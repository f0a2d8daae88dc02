package client_test

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/testenv"
)

type (
	gadget     = testkit.Gadget
	gadgetList = testkit.GadgetList
)

var gadgetGV = gadgetGVK.GroupVersion()

// exchange is one request to a resource and its answer's content types.
type exchange struct{ method, path, sent, answered string }

// recorder notes the content types of the requests through it to
// resource ("gadgets" if empty).
type recorder struct {
	resource string
	mu       sync.Mutex
	log      []exchange
}

func (r *recorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return testkit.RoundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		resource := r.resource
		if resource == "" {
			resource = "gadgets"
		}
		if err == nil && strings.Contains(req.URL.Path, "/"+resource) {
			r.mu.Lock()
			r.log = append(r.log, exchange{req.Method, req.URL.Path, mediaType(req.Header.Get("Content-Type")), mediaType(resp.Header.Get("Content-Type"))})
			r.mu.Unlock()
		}
		return resp, err
	})
}

func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.log...)
}

func mediaType(ct string) string {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt
}

// typedGadgetClient returns a synced client of gadgets in ns over its own cluster
// and factory (managedFields kept unless drop), running until the test ends, and the
// recorder of its requests.
func typedGadgetClient(t *testing.T, env *testenv.Environment, ns string, drop bool, opts ...cluster.Option) (*client.Client[*gadget], rest.Interface, *recorder) {
	t.Helper()
	rec := &recorder{}
	cfg := rest.CopyConfig(env.Config)
	cfg.Wrap(rec.wrap)
	c, err := cluster.New(cfg, append([]cluster.Option{cluster.WithScheme(testkit.GadgetScheme(t, gadgetGV))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	f, err := informer.NewFactory(c, informer.WithKeepManagedFields(!drop))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.For[*gadget](f, ns)
	if err != nil {
		t.Fatal(err)
	}
	startSynced(t, f)
	rc, err := c.RESTClientFor(gadgetGV)
	if err != nil {
		t.Fatal(err)
	}
	return cl, rc, rec
}

// With the CBORServingAndStorage gate, a custom resource's typed client
// reads, watches and writes CBOR; without it, JSON; either way every verb
// round-trips objects equal to those of a client that speaks JSON only,
// and an informer syncs and sees updates.
func TestCustomResourcesOverCBOR(t *testing.T) {
	t.Run("gate", func(t *testing.T) {
		testCBOR(t, testkit.OwnEnv(t, testenv.WithAPIServerFlags("--feature-gates=CBORServingAndStorage=true")), true)
	})
	t.Run("no-gate", func(t *testing.T) { testCBOR(t, testkit.Env(t), false) })
}

func testCBOR(t *testing.T, env *testenv.Environment, served bool) {
	ctx := context.Background()
	if err := env.InstallCRDs(ctx, testkit.GadgetCRD(gadgetGV.Group)); err != nil {
		t.Fatal(err)
	}
	ns := env.NewNamespace(t, "cbor-")
	// CBOR is a fast path: the CBOR clients ask for it, whatever
	// STEADY_FAST_PATHS says; the JSON one takes the default.
	fast := cluster.WithFastPaths(true)
	wire, wireREST, wireRec := typedGadgetClient(t, env, ns, false, fast)
	ref, refREST, refRec := typedGadgetClient(t, env, ns, false, cluster.WithCBOR(false))
	// A factory that drops managedFields does not decode them from CBOR.
	dropping, _, droppingRec := typedGadgetClient(t, env, ns, true, fast)

	// The caches hold the object at rv, equal to want (without
	// managedFields where the factory drops them).
	same := func(want *gadget) {
		t.Helper()
		for name, c := range map[string]*client.Client[*gadget]{"cbor": wire, "json": ref, "cbor, dropping": dropping} {
			testkit.Eventually(t, 20*time.Second, name+" cache at rv "+want.ResourceVersion, func() error {
				got, err := c.Get(ctx, ns, want.Name)
				if err != nil {
					return err
				}
				want := want
				if c == dropping {
					want = want.DeepCopyObject().(*gadget)
					want.ManagedFields = nil
				}
				if !reflect.DeepEqual(got, want) {
					return fmt.Errorf("cache holds %+v, want %+v", got, want)
				}
				return nil
			})
		}
	}

	created, err := wire.Create(ctx, &gadget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "g", Labels: map[string]string{"a": "b"}},
		Spec: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.ManagedFields) == 0 || created.ManagedFields[0].FieldsV1 == nil || !strings.HasPrefix(created.ManagedFields[0].FieldsV1.GetRawString(), "{") {
		t.Errorf("created object's managedFields are not JSON: %+v", created.ManagedFields)
	}
	same(created)

	created.Spec["k"] = "w"
	updated, err := wire.Update(ctx, created)
	if err != nil {
		t.Fatal(err)
	}
	if updated.Spec["k"] != "w" || updated.ResourceVersion == created.ResourceVersion {
		t.Fatalf("update answered %+v", updated)
	}
	same(updated)

	updated.Status.ObservedGeneration = updated.Generation
	status, err := wire.UpdateStatus(ctx, updated)
	if err != nil {
		t.Fatal(err)
	}
	if status.Status.ObservedGeneration != updated.Generation {
		t.Fatalf("status update answered %+v", status.Status)
	}
	same(status)
	patched, err := wire.Patch(ctx, ns, "g", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"c"}}}`))
	if err != nil || patched.Labels["a"] != "c" || patched.Status != status.Status {
		t.Fatalf("patch answered %+v, %v", patched, err)
	}
	same(patched)
	status = patched
	refGot, err := ref.Get(ctx, ns, "g")
	if err != nil {
		t.Fatal(err)
	}
	var lists [2]gadgetList
	for i, rc := range []rest.Interface{wireREST, refREST} {
		if err := rc.Get().Namespace(ns).Resource("gadgets").Do(ctx).Into(&lists[i]); err != nil {
			t.Fatal(err)
		}
	}
	if len(lists[0].Items) != 1 || !reflect.DeepEqual(lists[0], lists[1]) {
		t.Errorf("lists differ:\n%+v\n%+v", lists[0], lists[1])
	}
	// The cache's client leaves managedFields out of what it decodes from
	// CBOR, and only from CBOR.
	cl, err := cluster.New(env.Config, cluster.WithScheme(testkit.GadgetScheme(t, gadgetGV)), fast)
	if err != nil {
		t.Fatal(err)
	}
	cacheREST, err := cl.CacheClientFor(gadgetGV, true)
	if err != nil {
		t.Fatal(err)
	}
	var cached gadgetList
	if err := cacheREST.Get().Namespace(ns).Resource("gadgets").Do(ctx).Into(&cached); err != nil {
		t.Fatal(err)
	}
	if len(cached.Items) != 1 || len(lists[0].Items[0].ManagedFields) == 0 || (len(cached.Items[0].ManagedFields) == 0) != served {
		t.Errorf("the cache's client listed %+v (CBOR served %t)", cached.Items, served)
	}
	if err := wire.Delete(ctx, ns, "g"); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "the deletion in the cache", func() error {
		if _, err := wire.Get(ctx, ns, "g"); !apierrors.IsNotFound(err) {
			return fmt.Errorf("get after delete: %v", err)
		}
		return nil
	})
	if !reflect.DeepEqual(refGot, status) {
		t.Errorf("JSON-only client's cache holds %+v, want %+v", refGot, status)
	}

	answer, seq := runtime.ContentTypeJSON, runtime.ContentTypeJSON
	if served {
		answer, seq = runtime.ContentTypeCBOR, runtime.ContentTypeCBORSequence
	}
	checkExchanges(t, "cbor", wireRec.exchanges(), answer, seq, answer, true)
	streamed := 0
	for _, x := range droppingRec.exchanges() {
		if x.answered != answer && x.answered != seq {
			t.Errorf("dropping client: %s %s answered in %q, want %q or %q", x.method, x.path, x.answered, answer, seq)
		}
		if x.answered == seq {
			streamed++
		}
	}
	if streamed == 0 {
		t.Errorf("dropping client: no watch in %v", droppingRec.exchanges())
	}
	checkExchanges(t, "json", refRec.exchanges(), runtime.ContentTypeJSON, runtime.ContentTypeJSON, runtime.ContentTypeJSON, false)
}

// checkExchanges asserts that every answer came as answer (a watch as
// watch), that every body went as body, and that the log has a list, a
// watch (the informer's, maybe a list too) and a live list and, with writes, a create, two updates and a delete.
func checkExchanges(t *testing.T, name string, log []exchange, answer, watch, body string, writes bool) {
	t.Helper()
	verbs := map[string]int{}
	for _, x := range log {
		want := answer
		if x.method == http.MethodGet && x.answered == watch && watch != answer {
			want = watch
		}
		verbs[x.method]++
		if x.answered != want {
			t.Errorf("%s client: %s %s answered in %q, want %q", name, x.method, x.path, x.answered, want)
		}
		if (x.method == http.MethodPost || x.method == http.MethodPut) && x.sent != body {
			t.Errorf("%s client: %s %s sent %q, want %q", name, x.method, x.path, x.sent, body)
		}
	}
	seqs := 0
	for _, x := range log {
		if x.answered == watch {
			seqs++
		}
	}
	wrote := verbs[http.MethodPost] == 1 && verbs[http.MethodPut] == 2 && verbs[http.MethodDelete] == 1
	if verbs[http.MethodGet] < 2 || seqs == 0 || wrote != writes { // the list, the watch
		t.Errorf("%s client: exchanges %v", name, log)
	}
}
