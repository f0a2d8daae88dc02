package manager_test

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/manager"
)

// New makes no request, so these need no API server.
func TestClientThrottle(t *testing.T) {
	limiter := flowcontrol.NewTokenBucketRateLimiter(1, 1)
	for _, tc := range []struct {
		name string
		cfg  rest.Config
		opts []manager.Option
		want cluster.Throttle
	}{
		{"a config without throttling gets the default", rest.Config{}, nil, cluster.DefaultThrottle},
		{"a config's own throttling is kept", rest.Config{QPS: 50, Burst: 100}, nil, cluster.Throttle{QPS: 50, Burst: 100}},
		{"a config without client-side throttling keeps none", rest.Config{QPS: -1}, nil, cluster.NoThrottle},
		{"the option replaces the config's", rest.Config{QPS: 50, Burst: 100},
			[]manager.Option{manager.WithThrottle(cluster.NoThrottle)}, cluster.NoThrottle},
		{"the option replaces a rate limiter", rest.Config{RateLimiter: limiter},
			[]manager.Option{manager.WithThrottle(cluster.ClientGoThrottle)}, cluster.Throttle{QPS: 5, Burst: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Host = "https://kubernetes.invalid"
			before := *rest.CopyConfig(&cfg)
			m, err := manager.New(&cfg, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := cluster.ThrottleOf(m.Cluster().Config())
			if !ok || got != tc.want {
				t.Errorf("throttle %v (rate limiter decides: %t), want %v", got, !ok, tc.want)
			}
			if cfg.QPS != before.QPS || cfg.Burst != before.Burst || cfg.RateLimiter != before.RateLimiter {
				t.Errorf("New changed the caller's config: QPS %g, Burst %d", cfg.QPS, cfg.Burst)
			}
		})
	}

	// A rate limiter of the config's own is kept without the option.
	m, err := manager.New(&rest.Config{Host: "https://kubernetes.invalid", RateLimiter: limiter})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cluster.ThrottleOf(m.Cluster().Config()); ok {
		t.Error("the config's RateLimiter was dropped")
	}

	_, err = manager.New(&rest.Config{Host: "https://kubernetes.invalid"}, manager.WithThrottle(cluster.Throttle{QPS: 10}))
	if err == nil || !strings.Contains(err.Error(), "WithThrottle") || !strings.Contains(err.Error(), "Burst") {
		t.Fatalf("a burst of 0: %v, want an error naming the option and the burst", err)
	}
}
