package main

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// stepTimeout bounds each wait of the story.
const stepTimeout = 30 * time.Second

// waitFor polls cond until it returns true, for at most stepTimeout. An
// error from cond ends the wait.
func waitFor(ctx context.Context, what string, cond func(context.Context) (bool, error)) error {
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, stepTimeout, true, cond)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
	case wait.Interrupted(err):
		return fmt.Errorf("timed out after %s waiting for %s", stepTimeout, what)
	default:
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
}
