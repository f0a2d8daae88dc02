// Package protowatch decodes the API server's protobuf answers for the
// built-in kinds straight into their Go types, once.
//
// client-go decodes a protobuf watch event in layers: the frame, read
// into a buffer that grows by doubling, into a metav1.WatchEvent (a copy
// of the object's bytes), those into a runtime.Unknown (a second copy),
// whose kind is then looked up in the scheme to allocate the object by
// reflection. Each layer here is a length-delimited field of the one
// around it, so this package walks them by hand over the frame's bytes
// and hands the innermost ones to the kind's generated Unmarshal, which
// copies what it keeps (strings, and []byte values such as a Secret's
// data): the frame buffer is read into again for the next event.
//
// The wire format, as apimachinery's protobuf serializers write it: a
// watch frame is a 4-byte big-endian length and that many bytes of a
// metav1.WatchEvent (1: type, 2: RawExtension {1: raw}), whose raw is the
// magic prefix "k8s\x00" and a runtime.Unknown (1: TypeMeta {1:
// apiVersion, 2: kind}, 2: raw, 3: contentEncoding, 4: contentType) around
// the object's own protobuf. A list is the prefix and an Unknown around
// the list's protobuf.
//
// Kind.Watch runs a Decoder as apimachinery's watch.StreamWatcher does, so
// a watch ends, stops and reports a broken stream as client-go's does, but
// with a few events' buffer between the decoding goroutine and the reader.
// Objects come out as client-go's typed clients decode them: without
// apiVersion and kind. A Kind made with dropManagedFields also leaves out
// metadata.managedFields, for an informer that would drop them anyway:
// they are often half of an object's size and many of its allocations.
// It decodes the object's fields around them in runs, which protobuf's
// field-by-field decoding makes the same as decoding the object whole
// without them, so they are neither copied nor allocated.
//
// A Kind given Encodings also keeps each watched object's own bytes, those
// cuts made, for a compact cache to store instead of encoding the object
// again; Encode and Decode write a request body and read an answer of one
// object, for package client.
package protowatch
