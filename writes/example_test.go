package writes_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/writes"
)

// printer prints the writes it is given, as a controller's recorder would
// keep them.
type printer struct{}

func (printer) Record(w writes.Write) {
	fmt.Printf("wrote %s/%s at resourceVersion %s\n", w.Namespace, w.Name, w.ResourceVersion)
}

// shownCache is a Cache that already shows every write.
type shownCache struct{}

func (shownCache) Shows(writes.Write) bool { return true }
func (shownCache) WhenShows(writes.Write, func()) (func() bool, bool) {
	return func() bool { return false }, false
}

// Code that writes without package client, with a client-go clientset for
// instance, records its writes so that the controller waits for its cache
// to show them; the Cache is the informer the reconciler reads from.
func ExampleRecord() {
	ctx := writes.ContextWithRecorder(context.Background(), printer{}) // the controller does this
	// cm, err := clientset.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
	writes.Record(ctx, writes.Write{
		Cache:     shownCache{}, // in an operator: the *informer.Informer of ConfigMaps
		Namespace: "default", Name: "settings", UID: "6f1c", ResourceVersion: "4711",
	})
	writes.Record(context.Background(), writes.Write{Cache: shownCache{}}) // outside a reconcile: nothing
	// Output:
	// wrote default/settings at resourceVersion 4711
}

// laggingCache is a Cache that has processed every change up to
// resourceVersion rev, as an informer whose watch is behind.
type laggingCache struct{ rev int }

func (c *laggingCache) Shows(w writes.Write) bool {
	var rv int
	_, err := fmt.Sscan(w.ResourceVersion, &rv)
	return err != nil || rv <= c.rev
}

func (c *laggingCache) WhenShows(writes.Write, func()) (func() bool, bool) {
	return func() bool { return false }, false
}

// A reconcile's context keeps a log of its own writes (the controller puts
// one there); a read looks a write up with Find and, while the cache does
// not show it yet, answers with the object the server returned.
func ExampleFind() {
	cache := &laggingCache{rev: 10}
	ctx := writes.ContextWithLog(context.Background()) // the controller does this

	// After a successful update, package client records what the server returned.
	updated := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings", UID: "6f1c", ResourceVersion: "12"},
		Data:       map[string]string{"replicas": "3"},
	}
	writes.Record(ctx, writes.Write{Cache: cache, Namespace: "default", Name: "settings",
		UID: updated.UID, ResourceVersion: updated.ResourceVersion, Object: updated})

	// A later read of the same object in the same reconcile.
	show := func() {
		w, ok := writes.Find(ctx, cache, "default", "settings")
		switch {
		case !ok:
			fmt.Println("no write of default/settings")
		case cache.Shows(w):
			fmt.Println("the cache shows the write: read the cache")
		default:
			fmt.Println("the cache is behind: replicas", w.Object.(*corev1.ConfigMap).Data["replicas"])
		}
	}
	show()
	cache.rev = 12 // the watch delivers the update
	show()

	_, ok := writes.Find(context.Background(), cache, "default", "settings")
	fmt.Println("found without a log:", ok)
	// Output:
	// the cache is behind: replicas 3
	// the cache shows the write: read the cache
	// found without a log: false
}
