package main

import (
	"io"
	"testing"

	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
)

// TestExploreRecordsEachGeneration runs the story of
// TestReconcilerRecordsEachGeneration under the faults Explore chooses.
// setup makes a fresh reconciler for every manager, as a restarted
// process would. The condition's message counts the reconciles of one
// process ("reconcile #2"), so it differs between runs by design: a fresh
// manager counts from 1 again.
func TestExploreRecordsEachGeneration(t *testing.T) {
	setup := func(mgr *manager.Manager) error { return wireRecorder(mgr, &reconciler{out: io.Discard}) }
	operatortest.Explore(t, setup, recordsEachGeneration, withScheme,
		operatortest.WithIgnoredFields("/status/conditions/0/message"))
}
