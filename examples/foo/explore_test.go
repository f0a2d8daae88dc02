package main

import (
	"testing"

	"github.com/steadyctl/steady/operatortest"
)

// TestExploreReconcilerLifecycle runs the story of TestReconcilerLifecycle
// (create, status from the Deployment, new image, delete) under the faults
// Explore chooses from its writes.
func TestExploreReconcilerLifecycle(t *testing.T) {
	setup, opts := controllerAlone(t)
	operatortest.Explore(t, setup, reconcilerLifecycle, opts...)
}
