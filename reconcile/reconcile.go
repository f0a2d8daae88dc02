package reconcile

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/object"
)

// Request names the object to reconcile. It carries no state on purpose:
// the reconciler reads the current state from the cache, so many events for
// one object collapse into one request.
type Request struct {
	types.NamespacedName
}

// String returns the object's key (object.FormatKey): "namespace/name", or
// "name" for cluster-scoped objects.
func (r Request) String() string { return object.FormatKey(r.NamespacedName) }

// Result says when to reconcile the same request again after a success.
type Result struct {
	// RequeueAfter, if positive, reconciles the request again after this
	// long, regardless of events (e.g. to poll an external system).
	RequeueAfter time.Duration
}

// IsZero reports whether r asks for nothing.
func (r Result) IsZero() bool { return r.RequeueAfter <= 0 }

// Reconciler makes the world match the desired state of one object.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// Func adapts a function to Reconciler.
type Func func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f.
func (f Func) Reconcile(ctx context.Context, req Request) (Result, error) { return f(ctx, req) }

// terminalError marks an error that retrying will not fix.
type terminalError struct{ err error }

func (e *terminalError) Error() string { return "terminal error: " + e.err.Error() }
func (e *terminalError) Unwrap() error { return e.err }

// TerminalError wraps err to tell the controller not to retry: the error is
// logged and counted, the request's backoff is forgotten, and only a new
// event brings the object back. TerminalError(nil) is nil.
func TerminalError(err error) error {
	if err == nil {
		return nil
	}
	return &terminalError{err: err}
}

// IsTerminal reports whether err, or an error it wraps, came from TerminalError.
func IsTerminal(err error) bool {
	var t *terminalError
	return errors.As(err, &t)
}
