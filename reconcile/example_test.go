package reconcile_test

import (
	"context"
	"fmt"

	"github.com/steadyctl/steady/reconcile"
)

// A reconciler reads why it runs from its context; the controller puts the
// reasons there.
func ExampleReasonsFrom() {
	ctx := reconcile.ContextWithReasons(context.Background(), reconcile.OwnedUpdated|reconcile.ErrorRequeue)
	why := reconcile.ReasonsFrom(ctx)
	fmt.Println(why)
	fmt.Println("owned object changed:", why.Any(reconcile.Owned))
	fmt.Println("own object changed:", why.Any(reconcile.Primary))
	// Output:
	// owned_updated,error_requeue
	// owned object changed: true
	// own object changed: false
}
