package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
	"github.com/steadyctl/steady/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestClusterKinds runs the parent's side of the benchmark on a real API
// server for each kind: seeding, the paged LIST and the watch that follow
// convergence, and the load's patches, which must reach the data the
// controllers read (a Widget's spec.data survives the CRD's schema).
func TestClusterKinds(t *testing.T) {
	env := testkit.Env(t)
	ctx := t.Context()
	if err := env.InstallCRDs(ctx, v1alpha1.CRD()); err != nil {
		t.Fatal(err)
	}
	for _, k := range []e2e.Kind{e2e.KindConfigMap, e2e.KindCR} {
		t.Run(string(k), func(t *testing.T) {
			c, err := newCluster(env, testkit.Namespace(t, "e2e-"), k)
			if err != nil {
				t.Fatal(err)
			}
			c.page = 2 // pages of two, where the watch cache serves pages
			if err := c.seed(ctx, 5, 16, 2); err != nil {
				t.Fatal(err)
			}
			// The LISTs read the watch cache, which may be a moment behind
			// the writes just made.
			unconverged := func(want int) {
				t.Helper()
				testkit.Eventually(t, 10*time.Second, fmt.Sprintf("%d unconverged", want), func() error {
					if pending, _, err := c.unconverged(ctx, "r1"); err != nil || len(pending) != want {
						return fmt.Errorf("unconverged = %v, %v", pending, err)
					}
					return nil
				})
			}
			unconverged(5)

			// Converge them as a controller would, the annotation by Update,
			// after a LIST that follow then watches from.
			pending, rv, err := c.unconverged(ctx, "r1")
			if err != nil || len(pending) != 5 {
				t.Fatalf("unconverged = %v, %v", pending, err)
			}
			list := k.NewList()
			if err := c.objects.Get().Namespace(c.namespace).Resource(k.Resource()).Do(ctx).Into(list); err != nil {
				t.Fatal(err)
			}
			err = meta.EachListItem(list, func(obj runtime.Object) error {
				m := obj.(metav1.Object)
				e2e.SetObserved(m, e2e.Desired("r1", m))
				return c.objects.Put().Namespace(c.namespace).Resource(k.Resource()).Name(m.GetName()).Body(obj).Do(ctx).Error()
			})
			if err != nil {
				t.Fatal(err)
			}
			followCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if left, err := c.follow(followCtx, "r1", rv, pending); left != 0 || err != nil {
				t.Fatalf("follow = %d, %v; want every object seen converged", left, err)
			}
			if _, err := c.waitConverged(ctx, "r1", 30*time.Second); err != nil {
				t.Fatalf("waitConverged: %v", err)
			}
			unconverged(0)

			ls, err := c.generateLoad(ctx, 100, 30*time.Millisecond, 2, "t")
			if err != nil || ls.Sent != 3 || ls.Failed != 0 {
				t.Fatalf("load: %+v, %v; want 3 updates sent", ls, err)
			}
			unconverged(3)
			_, err = c.waitConverged(ctx, "r1", 100*time.Millisecond)
			if want := "3 of 5 " + k.Plural() + " not converged after 100ms"; err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("waitConverged after the load = %v, want %q", err, want)
			}
		})
	}
}

func TestAPIServerRSS(t *testing.T) {
	testkit.Env(t) // a kube-apiserver child of this process
	if rss, peak, ok := apiServerRSS(); !ok || rss == 0 || peak < rss {
		t.Fatalf("apiServerRSS = %d, %d, %v; want the running kube-apiserver's", rss, peak, ok)
	}
}
