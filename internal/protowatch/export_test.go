package protowatch

// NewEncodingsOf returns a table whose generations hold gen encodings.
func NewEncodingsOf(gen int) *Encodings { return newEncodings(gen) }

// Keep keeps data as the encoding of namespace/name at rv.
func Keep(e *Encodings, rv, namespace, name string, data []byte) { e.keep(rv, namespace, name, data) }

// FrameBuffer returns the capacity of d's frame buffer.
func FrameBuffer(d *Decoder) int { return cap(d.buf) }

// MinGrowth is the least the frame buffer grows by.
const MinGrowth = minGrowth

// UnmarshalWithoutManaged decodes b into obj, a built-in kind, without
// managedFields, and returns the encoding it keeps.
func UnmarshalWithoutManaged(obj Object, b []byte) ([]byte, error) {
	return unmarshalWithoutManaged(obj, metaOf(obj), b, true, false)
}

// Released reports whether e's tables have been let go.
func Released(e *Encodings) bool { return e.cur == nil && e.prev == nil }

// UnmarshalMetadataOnly decodes b's metadata into obj as a WatchList's
// initial events do, and returns the encoding to decode the rest from, or
// nil if it decoded obj whole.
func UnmarshalMetadataOnly(obj Object, b []byte) ([]byte, error) {
	return unmarshalWithoutManaged(obj, metaOf(obj), b, true, true)
}
