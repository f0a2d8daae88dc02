package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/steadyctl/steady/internal/testkit"
)

// TestMain checks that the example leaves no goroutine behind; the tests
// that need a local control plane start it through testkit.Env.
func TestMain(m *testing.M) { testkit.Main(m) }

// TestQuickstart runs the example's story against a local control plane and
// checks its lesson: with GenerationChanged the reconciler settles at about
// one reconcile per spec version; without it, it loops.
func TestQuickstart(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	s, err := run(ctx, testkit.Env(t).Config, &out, 2*time.Second)
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
}
