// Package fieldcodec encodes the Go values of Kubernetes objects without
// protobuf (custom resources' types) in a compact form of their own, for
// informer's compact caches: fields by position, with no names, as
// compiled from the Go type once.
//
// For[T] compiles, with package reflect, a plan of encoders and decoders
// for the struct T points to, and caches it for the type. A struct is its
// fields in declaration order (embedded ones included, unexported and
// `json:"-"` ones left out, as encoding/json leaves them out); integers
// are varints, floats byte-reversed varints (so that round numbers take a
// few bytes), strings and byte slices a length and their bytes, slices
// and maps a count and their elements (map keys in sorted order, so that
// equal objects encode to equal bytes), and a pointer a presence byte and
// its element. A nil slice, map or pointer and an empty one encode
// differently: a decoded value is reflect.DeepEqual to the one encoded.
//
// The apimachinery types with a JSON form of their own have a form here
// that decodes to what they hold when decoded from the API server's JSON:
// metav1.Time and MicroTime are Unix seconds and nanoseconds, in UTC or
// Local (any other location decodes as Local, as from JSON); a
// resource.Quantity is its canonical string, as in JSON (a quantity that
// was parsed from another spelling of the same amount, like "0.5" for
// "500m", decodes equal by equality.Semantic, not by DeepEqual);
// intstr.IntOrString and metav1.Duration are plain structs; a
// metav1.FieldsV1 is its Raw bytes; a runtime.RawExtension is its Raw
// bytes, with a nil Object, as from JSON (an Object without Raw is
// encoded as its JSON).
//
// A type the plan cannot give back equal is refused by For, naming the
// field: interfaces, functions, channels, complex numbers, maps keyed by
// other than strings and integers, and other types that encode themselves
// to JSON or text. Their caches use JSON instead.
//
// Values of a recursive type nested more than 10,000 deep (a cycle, which
// JSON refuses too) are an error.
//
// Decoded strings share one copy of the encoded bytes: a decode allocates
// that copy, the objects, slices and maps, and no string of its own (and
// a string kept from a decoded object keeps that copy).
package fieldcodec
