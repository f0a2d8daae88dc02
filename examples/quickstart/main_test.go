package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/examples/internal/demo"
	"github.com/steadyctl/steady/testenv"
)

// TestMain checks that the example leaves no goroutine behind; the tests
// share one local control plane, started by the first that asks for it.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestQuickstart runs the example's story against a local control plane and
// checks its lesson: with GenerationChanged the reconciler settles at about
// one reconcile per spec version; without it, it loops.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	s := playStory(t, testenv.Shared(t).Config, &out)
	if !strings.Contains(out.String(), "client-side throttling: off") {
		t.Errorf("the local control plane's config turns throttling off, and the output should say so:\n%s", out.String())
	}
	t.Logf("own control plane: %d reconciles without a predicate in %s, throttling %s", s.WithoutPredicate, s.LoopWindow, s.Throttle)
}

// TestQuickstartThroughKubeconfig runs it as a user with a kubeconfig does:
// $KUBECONFIG names the local control plane's kubeconfig file, and the demo
// loads it with cluster.Load. The story is the same; the loop runs at
// steady's default throttling, and the output says so.
func TestQuickstartThroughKubeconfig(t *testing.T) {
	env := testenv.Shared(t)
	t.Setenv("KUBECONFIG", env.KubeconfigPath)
	var out bytes.Buffer
	cfg, stop, err := demo.Config(context.Background(), &out, false)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.Contains(out.String(), "using the cluster of $KUBECONFIG ("+env.KubeconfigPath+")") {
		t.Fatalf("the demo does not say it uses $KUBECONFIG:\n%s", out.String())
	}
	s := playStory(t, cfg, &out)
	if !strings.Contains(out.String(), "client-side throttling: 20 requests/s, burst 30 (steady's default") {
		t.Errorf("output does not say which throttling applies:\n%s", out.String())
	}
	t.Logf("via $KUBECONFIG: %d reconciles without a predicate in %s, throttling %s", s.WithoutPredicate, s.LoopWindow, s.Throttle)
}

// playStory runs the story and checks its lesson: with GenerationChanged the
// reconciler settles at about one reconcile per spec version; without it,
// it loops.
func playStory(t *testing.T, cfg *rest.Config, out *bytes.Buffer) summary {
	t.Helper()
	s, err := run(context.Background(), cfg, out, 2*time.Second)
	if err != nil {
		t.Fatalf("%v\noutput:\n%s", err, out.String())
	}
	if s.SpecVersions != 2 || s.WithPredicate < 2 || s.WithPredicate > 3 {
		t.Fatalf("with GenerationChanged: %d reconciles for %d spec versions, want about one each\n%s", s.WithPredicate, s.SpecVersions, out.String())
	}
	if s.WithoutPredicate < 10 {
		t.Fatalf("without a predicate only %d reconciles in %s: the loop should show\n%s", s.WithoutPredicate, s.LoopWindow, out.String())
	}
	if !strings.Contains(out.String(), "scaled web to 2 replicas") {
		t.Fatalf("output does not tell the story:\n%s", out.String())
	}
	return s
}
