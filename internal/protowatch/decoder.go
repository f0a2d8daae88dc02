package protowatch

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Object is a kind's generated protobuf code, as every built-in kind has.
type Object interface {
	runtime.Object
	Unmarshal([]byte) error
}

// Kind decodes the objects of one kind. It is safe for concurrent use.
type Kind struct {
	name        string
	newObject   func() Object
	dropManaged bool // and newObject's objects have their ObjectMeta at field 1
	encodings   atomic.Pointer[Encodings]
}

// NewKind returns the Kind named kind ("ConfigMap"), whose objects
// newObject makes. With dropManagedFields its objects come out without
// metadata.managedFields; the option is ignored for a Go type that does
// not have its ObjectMeta at protobuf field 1, as every built-in kind has.
func NewKind(kind string, newObject func() Object, dropManagedFields bool) *Kind {
	return &Kind{name: kind, newObject: newObject,
		dropManaged: dropManagedFields && metadataFirst(newObject()) && metaOf(newObject()) != nil}
}

// DropsManagedFields reports whether k's objects come out without
// metadata.managedFields.
func (k *Kind) DropsManagedFields() bool { return k.dropManaged }

// KeepEncodings makes k's decoders keep the encoding of each object of an
// ADDED or MODIFIED event in e from then on (nil: no longer), for a
// compact cache of the objects exactly as decoded to take.
func (k *Kind) KeepEncodings(e *Encodings) { k.encodings.Store(e) }

// maxFrame is the largest watch event read, as client-go's limit: the API
// server stores objects of about 1.5 MiB at most.
const maxFrame = 16 << 20

// Decoder reads the events of a protobuf watch stream. It implements
// apimachinery's watch.Decoder, for Kind.Watch or watch.StreamWatcher.
type Decoder struct {
	kind *Kind
	body io.ReadCloser
	r    *bufio.Reader // body, read in large pieces (see readSize)
	hdr  [4]byte
	buf  []byte // the frame; read into again for each event
	// initial is set, for a WatchList decoder, until the first bookmark:
	// ADDED events then decode only their objects' metadata.
	initial bool
}

// NewDecoder returns a Decoder of k's events from body, a watch answer of
// content type application/vnd.kubernetes.protobuf;stream=watch.
func (k *Kind) NewDecoder(body io.ReadCloser) *Decoder {
	return &Decoder{kind: k, body: body, r: bufio.NewReaderSize(body, readSize)}
}

// readSize is how much of the stream a read asks for. Over HTTP/2 the
// client returns flow-control credit (a WINDOW_UPDATE frame, one write to
// the connection) from a read that takes 4 KiB or more since the last:
// reading each event's header and body separately, as client-go's framer
// does, writes one every few events of a streamed list; reads of up to
// 32 KiB, while the list streams in, write one per read.
const readSize = 32 << 10

// Watch returns the watch of k's events from body, a watch answer of
// content type application/vnd.kubernetes.protobuf;stream=watch, which it
// closes when stopped or at the end of the stream. Like client-go's, it
// ends with an ERROR event (a 500 Status) on an event it cannot decode,
// and without one at the end of the stream, truncated or not.
func (k *Kind) Watch(body io.ReadCloser) watch.Interface { return newWatcher(k.NewDecoder(body)) }

// WatchList is Watch for a watch that streams a list first (a WatchList:
// sendInitialEvents=true), for a compact cache that reads the objects of
// its initial list only to file their bytes under their keys. Until the
// first bookmark (the end of the initial events, or one before it), an
// ADDED event's object comes out with only its ObjectMeta decoded, and
// its encoding is kept in the Encodings, whose Take gives it out, marked
// partial, only for that very object; the cache decodes the rest from it
// when it needs it whole. An object whose encoding cannot be cut, and
// every object when k does not drop managedFields or keeps no encodings,
// comes out whole.
func (k *Kind) WatchList(body io.ReadCloser) watch.Interface {
	d := k.NewDecoder(body)
	d.initial = true
	return newWatcher(d)
}

// Decode returns the next event. At the end of the stream its error is
// io.EOF, or io.ErrUnexpectedEOF in the middle of an event; errors
// reading the stream come as they are, for the watch to tell a
// dropped connection from a broken event.
func (d *Decoder) Decode() (watch.EventType, runtime.Object, error) {
	if _, err := io.ReadFull(d.r, d.hdr[:]); err != nil {
		return "", nil, err
	}
	n := binary.BigEndian.Uint32(d.hdr[:])
	if n > maxFrame {
		return "", nil, fmt.Errorf("protowatch: %s watch event of %d bytes, more than %d", d.kind.name, n, maxFrame)
	}
	frame, err := d.frame(int(n))
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return "", nil, err
	}
	typ, obj, err := d.event(frame)
	if err != nil {
		return "", nil, fmt.Errorf("protowatch: %s watch event: %w", d.kind.name, err)
	}
	return typ, obj, nil
}

// minGrowth is the least the frame buffer grows by.
const minGrowth = 64 << 10

// frame reads the next n bytes into the frame buffer. The buffer grows
// with the bytes that come, not with the length the header declares, as
// client-go's does: a header that declares 16 MiB, followed by a few bytes
// and the end of the stream (or nothing more for a while), costs no 16
// MiB. Doubling, and never shrinking, keeps a stream of growing objects
// from allocating at every event.
func (d *Decoder) frame(n int) ([]byte, error) {
	b := d.buf[:0]
	for len(b) < n {
		if len(b) == cap(b) {
			grown := make([]byte, len(b), min(n, max(2*cap(b), minGrowth)))
			copy(grown, b)
			b, d.buf = grown, grown
		}
		m, err := io.ReadFull(d.r, b[len(b):min(n, cap(b))])
		if err != nil {
			return nil, err
		}
		b = b[:len(b)+m]
	}
	return b, nil
}

// Close closes the stream. Its error is of no use to a watch that ends,
// and client-go's decoder drops it too.
func (d *Decoder) Close() { _ = d.body.Close() }

// event decodes a frame: a WatchEvent (1: type, 2: RawExtension {1: an
// Unknown around the object}).
func (d *Decoder) event(raw []byte) (watch.EventType, runtime.Object, error) {
	var typ, inner []byte
	for len(raw) > 0 {
		f, err := next(raw)
		if err != nil {
			return "", nil, err
		}
		if err := checkWire(f, 2); err != nil {
			return "", nil, err
		}
		switch f.num {
		case 1:
			typ = f.val
		case 2: // the RawExtension
			b, err := bytesField(f.val, 1, 1)
			if err != nil {
				return "", nil, err
			}
			if b != nil {
				inner = b
			}
		}
		raw = raw[f.size:]
	}
	et, ok := eventTypes[string(typ)]
	if !ok {
		return "", nil, fmt.Errorf("invalid watch event type %q", typ)
	}
	if et == watch.Bookmark {
		d.initial = false
	}
	e := d.kind.encodings.Load()
	keep := e != nil && (et == watch.Added || et == watch.Modified)
	partial := keep && d.initial && et == watch.Added && d.kind.dropManaged
	obj, enc, partial, err := d.kind.decode(inner, keep, partial)
	if err != nil {
		return "", nil, err
	}
	if enc == nil {
		return et, obj, nil
	}
	m := metaOf(obj.(Object)) // set if partial: its metadata is all it has
	switch {
	case !partial:
		if m != nil {
			e.keep(m.ResourceVersion, m.Namespace, m.Name, enc)
		}
	case !e.keepPartial(m.ResourceVersion, m.Namespace, m.Name, enc):
		// Its bytes could be given to another: the object comes out whole.
		whole := d.kind.newObject()
		if err := whole.Unmarshal(enc); err != nil {
			return "", nil, fmt.Errorf("%s: %w", d.kind.name, err)
		}
		obj = whole
	}
	return et, obj, nil
}

var eventTypes = map[string]watch.EventType{
	string(watch.Added): watch.Added, string(watch.Modified): watch.Modified, string(watch.Deleted): watch.Deleted,
	string(watch.Bookmark): watch.Bookmark, string(watch.Error): watch.Error,
}

// decode decodes b, an Unknown around one of k's objects or around a
// Status (an ERROR event's). With encode it also returns a copy of the
// object's protobuf (without managedFields if k drops them: the bytes of
// the object returned), or nil if it has none. With metadataOnly (k drops
// managedFields) it decodes only the object's metadata if it can cut its
// encoding, and reports whether it did.
func (k *Kind) decode(b []byte, encode, metadataOnly bool) (obj runtime.Object, enc []byte, partial bool, err error) {
	kind, raw, err := unwrap(b)
	if err != nil {
		return nil, nil, false, err
	}
	switch string(kind) {
	case k.name:
		obj := k.newObject()
		if k.dropManaged {
			enc, err = unmarshalWithoutManaged(obj, metaOf(obj), raw, encode, metadataOnly)
		} else if err = obj.Unmarshal(raw); encode {
			enc = bytes.Clone(raw) // raw is the frame buffer's, read into again
		}
		if err != nil {
			return nil, nil, false, fmt.Errorf("%s: %w", k.name, err)
		}
		return obj, enc, metadataOnly && enc != nil, nil
	case "Status":
		status := &metav1.Status{}
		if err := status.Unmarshal(raw); err != nil {
			return nil, nil, false, fmt.Errorf("the Status of an ERROR event: %w", err)
		}
		return status, nil, false, nil
	}
	return nil, nil, false, fmt.Errorf("object of kind %q, want %s", kind, k.name)
}
