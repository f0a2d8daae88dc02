package client_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/informer"
)

// A client does not keep its informer alive: when the factory releases it,
// the client reads a fresh one, and no read in between answers from the
// emptied cache.
func TestClientReadsThroughReleasedInformers(t *testing.T) {
	c, ns := setup(t)
	ctx := context.Background()
	created, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}, Data: map[string]string{"color": "red"}})
	if err != nil {
		t.Fatal(err)
	}
	cached(t, c, ns, "a", created.ResourceVersion)

	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				if _, err := c.Get(ctx, ns, "a"); err != nil {
					errs <- err
					return
				}
				if l, err := c.List(ctx, client.MatchingIndex("by-color", "red")); err != nil || len(l) != 1 {
					errs <- err
					return
				}
			}
		})
	}
	// Release the informer the client reads, again and again, under the
	// readers.
	var released []*informer.Informer[*corev1.ConfigMap]
	for range 5 {
		inf := c.Informer()
		reg, err := inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{})
		if err != nil {
			t.Fatal(err)
		}
		reg.Remove()
		if !inf.Released() {
			t.Fatal("the informer was not released with its only handler")
		}
		released = append(released, inf)
		if _, err := c.Get(ctx, ns, "a"); err != nil { // reads the next one
			t.Fatalf("Get after the release: %v", err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a read while the informer was released: %v", err)
	}
	for i, inf := range released {
		if c.Informer() == inf {
			t.Errorf("the client still reads released informer %d", i)
		}
	}
}
