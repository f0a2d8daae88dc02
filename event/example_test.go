package event_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/reconcile"
)

// prices is the ConfigMap shop/prices at a resource version.
func prices(resourceVersion, usd string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "prices", ResourceVersion: resourceVersion},
		Data:       map[string]string{"usd": usd},
	}
}

// A periodic resync delivers an Update whose two objects have the same
// resource version; Unchanged tells it from a real change, as the
// controller does to queue resyncs at low priority. The event is typed,
// so its objects' fields are read without a type assertion.
func ExampleUpdate_Unchanged() {
	v7, v8 := prices("7", "1.10"), prices("8", "1.20")
	for _, e := range []event.Update[*corev1.ConfigMap]{
		{ObjectOld: v7, ObjectNew: v7}, // a resync
		{ObjectOld: v7, ObjectNew: v8}, // an edit
	} {
		fmt.Printf("rv %s -> %s: unchanged %v, usd %s\n",
			e.ObjectOld.ResourceVersion, e.ObjectNew.ResourceVersion, e.Unchanged(), e.ObjectNew.Data["usd"])
	}
	// Output:
	// rv 7 -> 7: unchanged true, usd 1.10
	// rv 7 -> 8: unchanged false, usd 1.20
}

// printQueue prints the requests a handler adds.
type printQueue struct{}

func (printQueue) Add(req reconcile.Request) { fmt.Println("  queued", req) }

// A Delete always names its object by Key, also when the informer only
// inferred the deletion from a relist (DeleteStateUnknown) and may never
// have had the object (Object is then nil: check with IsNil before
// reading it). handler.EnqueueObject, like every handler, takes the same
// event and queues a request by the key in all three cases.
func ExampleDelete() {
	key := types.NamespacedName{Namespace: "shop", Name: "prices"}
	enqueue := handler.EnqueueObject[*corev1.ConfigMap]()
	for _, e := range []event.Delete[*corev1.ConfigMap]{
		{Key: key, Object: prices("9", "1.30")},                           // seen on the watch
		{Key: key, Object: prices("8", "1.20"), DeleteStateUnknown: true}, // missing from a relist
		{Key: key, DeleteStateUnknown: true},                              // never cached
	} {
		switch {
		case event.IsNil(e.Object):
			fmt.Printf("%s deleted, last state unknown\n", e.Key)
		case e.DeleteStateUnknown:
			fmt.Printf("%s deleted unseen, cached usd %s (maybe stale)\n", e.Key, e.Object.Data["usd"])
		default:
			fmt.Printf("%s deleted, final usd %s\n", e.Key, e.Object.Data["usd"])
		}
		enqueue.Delete(context.Background(), e, printQueue{})
	}
	// Output:
	// shop/prices deleted, final usd 1.30
	//   queued shop/prices
	// shop/prices deleted unseen, cached usd 1.20 (maybe stale)
	//   queued shop/prices
	// shop/prices deleted, last state unknown
	//   queued shop/prices
}
