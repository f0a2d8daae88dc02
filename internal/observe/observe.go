package observe

import (
	"context"
	"time"

	"github.com/steadyctl/steady/reconcile"
)

// Hooks receive what the controllers started under a context do. Every
// func may be nil. They are called from the controllers' goroutines, so
// they must be safe for concurrent use, and Begin and End run on the
// worker, inside the reconcile: a slow hook slows the controller.
type Hooks struct {
	// Started is called when a controller's workers start, with funcs
	// that queue a request for it and count the requests it has queued,
	// in progress or held for its caches.
	Started func(controller string, add func(reconcile.Request), pending func() int)
	// Begin is called before a reconcile, End after it.
	Begin func(controller string, req reconcile.Request)
	End   func(controller string, req reconcile.Request, res reconcile.Result, err error)
	// ReadYourWritesBound, when positive, lowers the bound on how long a
	// controller holds a request for its caches to show its writes (see
	// controller.WithReadYourWritesTimeout) to at most this.
	ReadYourWritesBound time.Duration
}

type hooksKey struct{}

// WithHooks returns a context carrying h for the controllers started with it.
func WithHooks(ctx context.Context, h *Hooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// From returns the Hooks ctx carries, or nil.
func From(ctx context.Context) *Hooks {
	h, _ := ctx.Value(hooksKey{}).(*Hooks)
	return h
}

// Reconcile names one reconcile: the controller and the request.
type Reconcile struct {
	Controller string
	Request    reconcile.Request
}

type reconcileKey struct{}

// ContextWithReconcile returns a context that says the requests sent with
// it are made by the reconcile r.
func ContextWithReconcile(ctx context.Context, r Reconcile) context.Context {
	return context.WithValue(ctx, reconcileKey{}, r)
}

// ReconcileFrom returns the reconcile a request's context was made by.
func ReconcileFrom(ctx context.Context) (Reconcile, bool) {
	r, ok := ctx.Value(reconcileKey{}).(Reconcile)
	return r, ok
}
