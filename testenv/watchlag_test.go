package testenv_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/testenv"
)

// Through a WatchLag, requests are answered at once while watch events
// come late: a client sees its own write by Get before its watch does.
func TestWatchLagDelaysOnlyWatches(t *testing.T) {
	const lag = 2 * time.Second
	env := testenv.Shared(t)
	ns := env.NewNamespace(t, "lag-")
	l, err := env.NewWatchLag(lag)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lagging, err := kubernetes.NewForConfig(l.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := lagging.CoreV1().ConfigMaps(ns)
	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	created := time.Now()
	if _, err := env.Clientset.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "lagged"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "lagged", metav1.GetOptions{}); err != nil {
		t.Fatalf("Get through the lagging proxy: %v", err)
	}
	select {
	case ev := <-w.ResultChan():
		t.Fatalf("watch event %s before the Get returned", ev.Type)
	default:
	}
	ev, ok := nextEvent(t, w)
	if !ok || ev.Type != watch.Added {
		t.Fatalf("event %v (open %t), want Added", ev.Type, ok)
	}
	if waited := time.Since(created); waited < lag {
		t.Fatalf("event after %v, want at least the lag of %v", waited, lag)
	}

	// A lag of zero applies to the events sent from then on.
	l.Set(0)
	if err := env.Clientset.CoreV1().ConfigMaps(ns).Delete(ctx, "lagged", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	if ev, ok := nextEvent(t, w); !ok || ev.Type != watch.Deleted {
		t.Fatalf("event %v (open %t), want Deleted", ev.Type, ok)
	}
	if waited := time.Since(deleted); waited >= lag {
		t.Fatalf("event after %v with the lag off", waited)
	}
}

// AwaitEvent returns once the write's event has reached the proxy, in
// JSON and in protobuf alike, and a Set after it leaves that event's lag
// as it was.
func TestWatchLagAwaitEvent(t *testing.T) {
	const lag = 2 * time.Second
	env := testenv.Shared(t)
	l, err := env.NewWatchLag(lag)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	for _, contentType := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
		t.Run(contentType, func(t *testing.T) {
			// A namespace of its own: a watch from no resourceVersion
			// begins with an Added event of every object already there.
			ns := env.NewNamespace(t, "lag-await-")
			cfg := rest.CopyConfig(l.Config)
			cfg.ContentType = contentType
			lagging, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			l.Set(lag)
			w, err := lagging.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			created := time.Now()
			cm, err := env.Clientset.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "awaited-"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			awaitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := l.AwaitEvent(awaitCtx, cm.ResourceVersion); err != nil {
				t.Fatal(err)
			}
			l.Set(0)
			ev, ok := nextEvent(t, w)
			if !ok || ev.Type != watch.Added {
				t.Fatalf("event %v (open %t), want Added", ev.Type, ok)
			}
			if got, ok := ev.Object.(*corev1.ConfigMap); !ok || got.Name != cm.Name {
				t.Fatalf("Added event of %#v, want ConfigMap %s", ev.Object, cm.Name)
			}
			if waited := time.Since(created); waited < lag {
				t.Fatalf("event after %v: a Set after AwaitEvent changed its lag of %v", waited, lag)
			}
		})
	}

	// A version no event carries: AwaitEvent gives up with its context.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := l.AwaitEvent(short, "999999999999"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AwaitEvent of a version never sent: %v, want the deadline", err)
	}
}

// kube-apiserver writes a CBOR watch event's strings as byte strings;
// AwaitEvent finds the resourceVersion there too.
func TestWatchLagAwaitEventInCBOR(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	env := testkit.OwnEnv(t, testenv.WithAPIServerFlags("--feature-gates=CBORServingAndStorage=true"))
	const group = "testenv.steady.dev"
	if err := env.InstallCRDs(ctx, testkit.GadgetCRD(group)); err != nil {
		t.Fatal(err)
	}
	ns := env.NewNamespace(t, "lag-cbor-")
	l, err := env.NewWatchLag(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lagging, err := rest.HTTPClientFor(l.Config)
	if err != nil {
		t.Fatal(err)
	}
	// The events come an hour late, the headers at once. A new resource's
	// watch cache answers 429 until it has initialised.
	var resp *http.Response
	testkit.Eventually(t, 30*time.Second, "a CBOR watch of gadgets", func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.Config.Host+"/apis/"+group+"/v1/namespaces/"+ns+"/gadgets?watch=true", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Accept", "application/cbor")
		if resp, err = lagging.Do(req); err != nil {
			return err
		}
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/cbor-seq" {
			_ = resp.Body.Close()
			return fmt.Errorf("watch answered %d in %q, want 200 in CBOR", resp.StatusCode, ct)
		}
		return nil
	})
	defer resp.Body.Close()
	gadgets := dynamic.NewForConfigOrDie(env.Config).Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}).Namespace(ns)
	g := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"}}}
	created, err := gadgets.Create(ctx, g, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.AwaitEvent(ctx, created.GetResourceVersion()); err != nil {
		t.Fatal(err)
	}
}
