package testkit

import (
	"context"
	"sync"
	"testing"
)

// Run runs each of starts, the Start methods of what a test runs in the
// background (Run(t, m.Start) for a manager, Run(t, inf.Start, c.Start)
// for an informer and its controller), in a goroutine of its own until the
// test ends. Then it cancels their context and waits for all of them to
// return, before the cleanups registered earlier (Namespace's) run. An
// error one returns fails the test.
func Run(t testing.TB, starts ...func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, start := range starts {
		wg.Go(func() {
			if err := start(ctx); err != nil {
				t.Errorf("run: %v", err)
			}
		})
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
}
