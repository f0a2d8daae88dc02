package protowatch

// NewEncodingsOf returns a table whose generations hold gen encodings.
func NewEncodingsOf(gen int) *Encodings { return newEncodings(gen) }

// Keep keeps data as the encoding of namespace/name at rv.
func Keep(e *Encodings, rv, namespace, name string, data []byte) { e.keep(rv, namespace, name, data) }
