package informer

import (
	"context"
	"mime"
	"reflect"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/protowatch"
)

// wireForm is how a typed informer of a built-in kind decodes the API
// server's protobuf itself: each object once, from the bytes read, where
// client-go copies its bytes twice more and looks its kind up in the
// scheme (package protowatch). It is used when the cluster's typed clients
// of the kind speak protobuf (cluster.Cluster.ProtobufFor); anything else
// (JSON, a Status) goes to client-go's decoding.
type wireForm struct {
	kind  *protowatch.Kind
	lists *protowatch.List
	// refused is set when the server would not watch in protobuf (a 406
	// from an aggregated API server without it): watches go to client-go,
	// which takes what the server sends, from then on.
	refused atomic.Bool
	// listMetadata, set by the informer, says whether a streamed list may
	// come with only its objects' metadata decoded (see
	// Informer.metadataList).
	listMetadata atomic.Pointer[func() bool]
}

// newWireForm returns the wireForm of kind, or nil if its list type has no
// protobuf code. With dropManaged, watch events' objects are decoded
// without managedFields, for an informer that drops them anyway.
func newWireForm(kind string, newObject func() protowatch.Object, newList func() (runtime.Object, error), dropManaged bool) *wireForm {
	if list, err := newList(); err != nil {
		return nil
	} else if _, ok := list.(protowatch.Object); !ok {
		return nil
	}
	return &wireForm{kind: protowatch.NewKind(kind, newObject, dropManaged), lists: protowatch.NewList(kind + "List")}
}

// protoNew returns a function making new objects T, if T is a built-in
// kind's Go type (it has protobuf code), or nil.
func protoNew[T runtime.Object]() func() protowatch.Object {
	var zero T
	if _, ok := any(zero).(protowatch.Object); !ok {
		return nil
	}
	elem := reflect.TypeOf(zero).Elem()
	return func() protowatch.Object { return reflect.New(elem).Interface().(protowatch.Object) }
}

// watch watches as req asks, in protobuf; list says it streams a list
// first. It reports false when the server refuses protobuf, for the caller
// to watch through client-go. The request is not throttled, as client-go's
// watches are not: the client rate limit is for requests that end.
func (w *wireForm) watch(ctx context.Context, req *rest.Request, list bool) (watch.Interface, bool, error) {
	if w.refused.Load() {
		return nil, false, nil
	}
	body, err := req.SetHeader("Accept", runtime.ContentTypeProtobuf).Throttle(nil).Stream(ctx)
	if err != nil {
		if apierrors.IsNotAcceptable(err) || apierrors.IsUnsupportedMediaType(err) {
			w.refused.Store(true)
			return nil, false, nil
		}
		return nil, true, err
	}
	if f := w.listMetadata.Load(); list && f != nil && (*f)() {
		return w.kind.WatchList(body), true, nil
	}
	return w.kind.Watch(body), true, nil
}

// list decodes res into list if it is a protobuf list of the kind. It
// reports false for client-go to decode it: an error, JSON or a Status.
func (w *wireForm) list(res rest.Result, list runtime.Object) (bool, error) {
	var ct string
	res.ContentType(&ct)
	body, err := res.Raw()
	if mt, _, perr := mime.ParseMediaType(ct); err != nil || perr != nil || mt != runtime.ContentTypeProtobuf {
		return false, nil
	}
	return w.lists.Decode(body, list.(protowatch.Object))
}

// useWireEncodings lets a compact cache of protobuf take each watched
// object's encoding from its decoder (protowatch.Encodings) instead of
// encoding the object again, when the cache gets objects exactly as
// decoded: no transform but dropping managed fields, which the decoder
// did already, and no shard filter, which would leave encodings nobody
// takes. Otherwise it stops the decoders keeping them. inf.mu is held.
func (inf *Informer[T]) useWireEncodings() {
	c := inf.cache
	use := c.compact != nil && c.compact.codec.form == "protobuf" &&
		inf.transform == nil && inf.kindTransform == nil && inf.shardSelector == ""
	var kinds []*protowatch.Kind
	var wires []*wireForm
	for _, src := range inf.sources {
		lw := src.lw
		if s, ok := lw.(*selectingLW); ok {
			lw = s.lw // the server selects: every object it sends is cached
		}
		typed, ok := lw.(*typedLW)
		if !ok || typed.wire == nil {
			use = false
			continue
		}
		kinds, wires = append(kinds, typed.wire.kind), append(wires, typed.wire)
		use = use && typed.wire.kind.DropsManagedFields() == inf.dropManaged
	}
	var table *protowatch.Encodings
	if c.compact != nil {
		c.mu.Lock()
		switch {
		case !use:
			c.compact.wire = nil // what a decoder kept may not be what is cached now
		case c.compact.wire == nil:
			c.compact.wire = protowatch.NewEncodings()
		}
		table = c.compact.wire
		c.mu.Unlock()
	}
	for _, k := range kinds {
		k.KeepEncodings(table)
	}
	var list *func() bool
	if table != nil {
		f := inf.metadataList
		list = &f
	}
	for _, w := range wires {
		w.listMetadata.Store(list)
	}
}

// metadataList reports whether the list a source is about to stream may
// come with only its objects' metadata decoded, the rest left in their
// encodings (protowatch.Kind.WatchList), when the informer has not synced
// yet: the cache then files most objects of its first list without
// decoding them whole. It may when nothing would read them whole as they
// are cached: no index but the namespace one, and no handler but those
// registered with MetadataOnly. Should one be added while the list
// streams in, the cache decodes the objects it needs from their
// encodings (see Cache.put and listener.deliverEncoded).
func (inf *Informer[T]) metadataList() bool {
	if inf.sync.synced.Load() || inf.wholeReaders.Load() > 0 {
		return false
	}
	c := inf.cache
	c.mu.RLock()
	defer c.mu.RUnlock()
	return !c.funcIndexes
}
