package main

import (
	"context"
	"testing"

	"github.com/steadyctl/steady/bench/internal/admit"
)

// TestServes starts the child's server in process, without an API
// server, and checks that it answers every case of the load as the
// shared logic says.
func TestServes(t *testing.T) {
	if err := admit.Smoke(context.Background(), start); err != nil {
		t.Fatal(err)
	}
}
