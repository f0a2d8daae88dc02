package main

import (
	"testing"

	"github.com/steadyctl/steady/operatortest"
)

// TestExploreCopiesFollowTargets runs the story of TestCopiesFollowTargets
// under the faults Explore chooses from its writes. The manager caches
// every namespace, so each run would see the others' objects: the runs go
// one at a time, in one scope, each deleting its source and target when it
// ends.
func TestExploreCopiesFollowTargets(t *testing.T) {
	scope := newScope()
	setup, opts := operatorAlone(scope)
	operatortest.Explore(t, setup, copiesFollowTargets(scope), append(opts, operatortest.WithParallelism(1))...)
}
