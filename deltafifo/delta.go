package deltafifo

import (
	"errors"
	"fmt"

	"github.com/steadyctl/steady/object"
)

// DeltaType says what happened to an object.
type DeltaType string

// The kinds of change.
const (
	// Added: a watch reported a new object.
	Added DeltaType = "Added"
	// Updated: a watch reported a change.
	Updated DeltaType = "Updated"
	// Deleted: a watch reported a deletion, or a relist found the object
	// gone (then FinalStateUnknown is set).
	Deleted DeltaType = "Deleted"
	// Replaced: the object was in a relist. Whether it changed is for the
	// consumer to tell, by comparing resourceVersions with its cache.
	Replaced DeltaType = "Replaced"
	// Sync: a periodic resync re-delivers a known, unchanged object.
	Sync DeltaType = "Sync"
)

// Delta is one change to one object.
type Delta[T object.Object] struct {
	Type DeltaType
	// Object is the object after the change; for a deletion inferred from a
	// relist, the last state the consumer knew, which may be the zero value.
	Object T
	// FinalStateUnknown is set on Deleted deltas made by Replace for objects
	// that vanished while no watch was open: Object is not their final state.
	// (client-go wraps such objects in a DeletedFinalStateUnknown tombstone.)
	FinalStateUnknown bool
}

// Item is one key's pending deltas, oldest first.
type Item[T object.Object] struct {
	Key    string
	Deltas []Delta[T]
}

// Batch is what one Pop hands over: one Item, or after a Replace every key
// queued at that moment, so the consumer can apply a relist atomically.
type Batch[T object.Object] struct {
	Items []Item[T]
	// InitialList is set on the batch made by the first Replace, and on
	// the batches of that list's parts (AppendList).
	InitialList bool
	// More is set on a batch of a list's parts (AppendList) that the list
	// has not ended with: more of it follows in later batches. A consumer
	// counts a list as applied at the batch without More.
	More bool
}

// KnownObjects is the consumer's view of what it has stored, which Replace
// uses to find deletions and Resync to find what to re-deliver. Its keys
// are object.Key's, the keys the FIFO queues under.
type KnownObjects[T object.Object] interface {
	ListKeys() []string
	GetByKey(key string) (T, bool)
}

// Errors returned by Pop.
var (
	// ErrClosed is returned by Pop once the FIFO is closed.
	ErrClosed = errors.New("deltafifo: closed")
	// ErrRequeue, wrapped in an error returned by the process function, puts
	// the batch's items back at the front of the queue.
	ErrRequeue = errors.New("deltafifo: requeue")
)

// errNoName is why an object cannot be queued: without a name it has no
// key, and two such objects would be taken for one.
var errNoName = errors.New("object has no name")

// keyOf returns obj's queue key, object.Key, refusing an object without a
// name.
func keyOf(obj object.Object) (string, error) {
	if obj.GetName() == "" {
		return "", errNoName
	}
	return object.Key(obj), nil
}

// describe names an object in errors, also when it cannot be keyed.
func describe(obj object.Object) string {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if kind == "" {
		kind = fmt.Sprintf("%T", obj)
	}
	return fmt.Sprintf("%s %q in namespace %q (generateName %q)", kind, obj.GetName(), obj.GetNamespace(), obj.GetGenerateName())
}
