package reconcile

import "context"

// controllerNameKey is the context key of the running controller's name.
type controllerNameKey struct{}

// ContextWithControllerName returns a copy of ctx that says the reconcile
// running with it belongs to the controller name. Package controller sets
// it on every reconcile's context, so that code called from a reconciler
// can tell which controller it works for without being told: the
// client's Server-Side Apply uses it as the default field manager.
func ContextWithControllerName(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, controllerNameKey{}, name)
}

// ControllerName returns the name of the controller whose reconcile runs
// with ctx, and false outside of a reconcile (or when the name is empty).
func ControllerName(ctx context.Context) (string, bool) {
	name, _ := ctx.Value(controllerNameKey{}).(string)
	return name, name != ""
}
