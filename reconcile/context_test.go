package reconcile_test

import (
	"context"
	"testing"

	"github.com/steadyctl/steady/reconcile"
)

func TestControllerName(t *testing.T) {
	ctx := context.Background()
	if name, ok := reconcile.ControllerName(ctx); ok || name != "" {
		t.Fatalf("ControllerName of a bare context = %q, %v; want none", name, ok)
	}
	ctx = reconcile.ContextWithControllerName(ctx, "foo")
	if name, ok := reconcile.ControllerName(ctx); !ok || name != "foo" {
		t.Fatalf("ControllerName = %q, %v; want foo", name, ok)
	}
	if name, ok := reconcile.ControllerName(reconcile.ContextWithControllerName(ctx, "")); ok || name != "" {
		t.Fatalf("ControllerName after an empty name = %q, %v; want none", name, ok)
	}
}
