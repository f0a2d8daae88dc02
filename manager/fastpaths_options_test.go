package manager_test

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/manager"
)

// WithoutFastPaths reaches the manager's cluster: the paths named are off,
// the others on; a path that does not exist is an error of New naming it.
func TestWithoutFastPathsReachesTheCluster(t *testing.T) {
	t.Setenv(cluster.FastPathsEnv, "")
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	m, err := manager.New(cfg, manager.WithoutFastPaths(cluster.FastHTTP1, cluster.FastCompact))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cluster.FastPaths {
		want := p != cluster.FastHTTP1 && p != cluster.FastCompact
		if got := m.Cluster().FastPath(p); got != want {
			t.Errorf("FastPath(%s) = %v, want %v", p, got, want)
		}
	}
	_, err = manager.New(cfg, manager.WithoutFastPaths("nope"))
	if err == nil || !strings.Contains(err.Error(), `no fast path "nope"`) {
		t.Errorf("WithoutFastPaths(\"nope\"): %v, want an error naming it", err)
	}
}
