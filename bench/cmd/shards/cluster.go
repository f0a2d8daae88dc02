package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/shard"
	"github.com/steadyctl/steady/testenv"
)

// testCluster is the parent's view of one control plane: the namespace of the
// ConfigMaps (and of the rings' Leases) and the seeded objects.
type testCluster struct {
	kubeconfig string
	namespace  string
	client     kubernetes.Interface
	names      []string
	uids       []string // of names, as created
}

func newCluster(env *testenv.Environment, namespace string) (*testCluster, error) {
	cfg := rest.CopyConfig(env.Config)
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.QPS = -1
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &testCluster{kubeconfig: env.KubeconfigPath, namespace: namespace, client: cs}, nil
}

// seed creates the namespace and n ConfigMaps with payload bytes of filler
// each, from workers goroutines, and records their uids.
func (c *testCluster) seed(ctx context.Context, n, payload, workers int) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", c.namespace, err)
	}
	c.names, c.uids = make([]string, n), make([]string, n)
	filler := strings.Repeat("x", payload)
	return c.each(ctx, workers, n, func(ctx context.Context, i int) error {
		c.names[i] = fmt.Sprintf("cm-%06d", i)
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: c.names[i], Labels: map[string]string{"app": "bench-shards"}},
			Data:       map[string]string{e2e.ValueKey: "0", "filler": filler},
		}
		created, err := c.client.CoreV1().ConfigMaps(c.namespace).Create(ctx, cm, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating ConfigMap %s: %w", cm.Name, err)
		}
		c.uids[i] = string(created.UID)
		return nil
	})
}

// each calls f for 0 … n-1 from workers goroutines, and stops at the first
// error, which it returns.
func (c *testCluster) each(ctx context.Context, workers, n int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				if err := f(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// expected counts the seeded objects the ring of members gives each of
// them, as every replica computes it (shard.DefaultVirtualNodes points
// each, by uid): what a settled replica caches.
func (c *testCluster) expected(members []string) (map[string]int, error) {
	a, err := shard.NewAssignment(members, shard.DefaultVirtualNodes)
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int, len(members))
	for _, uid := range c.uids {
		counts[a.Owner(shard.Hash(uid))]++
	}
	return counts, nil
}

// loadStats is what a load run achieved.
type loadStats struct {
	Sent    int     `json:"sent"`
	Failed  int     `json:"failed"`
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"rate"` // Sent / Seconds
}

// load patches rate × d ConfigMaps, round-robin over all of them, paced by
// a token bucket, from writers goroutines: each patch sets data[ValueKey]
// to a new value (tagged with tag) and the written annotation to its send
// time, as the end-to-end benchmark's load does.
func (c *testCluster) load(ctx context.Context, perSecond float64, d time.Duration, writers int, tag string) (loadStats, error) {
	planned := int(perSecond * d.Seconds())
	limiter := rate.NewLimiter(rate.Limit(perSecond), 1)
	var failed atomic.Int64
	var firstErr error
	var errOnce sync.Once
	start := time.Now()
	err := c.each(ctx, writers, planned, func(ctx context.Context, i int) error {
		if err := limiter.Wait(ctx); err != nil {
			return err
		}
		patch, _ := json.Marshal(map[string]any{
			"metadata": map[string]any{"annotations": map[string]string{
				e2e.WrittenAnnotation: strconv.FormatInt(time.Now().UnixNano(), 10)}},
			"data": map[string]string{e2e.ValueKey: tag + "-" + strconv.Itoa(i)},
		})
		name := c.names[i%len(c.names)]
		if _, err := c.client.CoreV1().ConfigMaps(c.namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			failed.Add(1)
			errOnce.Do(func() { firstErr = fmt.Errorf("patching ConfigMap %s: %w", name, err) })
		}
		return nil
	})
	s := loadStats{Failed: int(failed.Load()), Seconds: time.Since(start).Seconds()}
	s.Sent = planned - s.Failed
	s.Rate = float64(s.Sent) / s.Seconds
	if err != nil {
		return s, err
	}
	if s.Failed > planned/100 {
		return s, fmt.Errorf("%d of %d updates failed, the first: %w", s.Failed, planned, firstErr)
	}
	return s, nil
}

// waitConverged polls, listing from the API server's watch cache, until
// every ConfigMap carries the annotation a controller of run writes, and
// returns how long that took.
func (c *testCluster) waitConverged(ctx context.Context, run string, timeout time.Duration) (time.Duration, error) {
	start := time.Now()
	lastLog := start
	for {
		list, err := c.client.CoreV1().ConfigMaps(c.namespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return 0, err
		}
		left := 0
		for i := range list.Items {
			if !e2e.Converged(run, &list.Items[i]) {
				left++
			}
		}
		switch {
		case len(list.Items) != len(c.names):
			return 0, fmt.Errorf("listed %d ConfigMaps, want %d", len(list.Items), len(c.names))
		case left == 0:
			return time.Since(start), nil
		case time.Since(start) > timeout:
			return 0, fmt.Errorf("%d of %d ConfigMaps not converged after %v", left, len(c.names), timeout)
		case time.Since(lastLog) > 5*time.Second:
			logf("  %d of %d ConfigMaps to converge", left, len(c.names))
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
