package reconcile_test

import (
	"context"
	"fmt"

	"github.com/steadyctl/steady/reconcile"
)

// A reconciler reads why it runs from its context; the controller puts the
// reasons there.
func ExampleReasonsFrom() {
	ctx := reconcile.WithReasons(context.Background(), reconcile.OwnedUpdated|reconcile.ErrorRequeue)
	why := reconcile.ReasonsFrom(ctx)
	fmt.Println(why)
	fmt.Println("owned object changed:", why.Any(reconcile.Owned))
	fmt.Println("own object changed:", why.Any(reconcile.Primary))
	// Output:
	// owned_updated,error_requeue
	// owned object changed: true
	// own object changed: false
}

// recorder prints the writes it is given, as a controller's would keep them.
type recorder struct{}

func (recorder) RecordWrite(w reconcile.Write) {
	fmt.Printf("wrote %s/%s at resourceVersion %s\n", w.Namespace, w.Name, w.ResourceVersion)
}

// shownCache is a WriteCache that already shows every write.
type shownCache struct{}

func (shownCache) Shows(reconcile.Write) bool { return true }
func (shownCache) WhenShows(reconcile.Write, func()) (func() bool, bool) {
	return func() bool { return false }, false
}

// Code that writes without package client, with a client-go clientset for
// instance, records its writes so that the controller waits for its cache
// to show them; the Cache is the informer the reconciler reads from.
func ExampleRecordWrite() {
	ctx := reconcile.WithWriteRecorder(context.Background(), recorder{}) // the controller does this
	// cm, err := clientset.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
	reconcile.RecordWrite(ctx, reconcile.Write{
		Cache:     shownCache{}, // in an operator: the *informer.Informer of ConfigMaps
		Namespace: "default", Name: "settings", UID: "6f1c", ResourceVersion: "4711",
	})
	reconcile.RecordWrite(context.Background(), reconcile.Write{Cache: shownCache{}}) // outside a reconcile: nothing
	// Output:
	// wrote default/settings at resourceVersion 4711
}
