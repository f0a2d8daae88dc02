// Package cborwire lets steady's typed REST clients speak CBOR (KEP-4222)
// with an API server that serves it, without client-go's client-side
// feature gates, which are read from the environment.
//
// client-go's REST client rewrites a config's CBOR content types to JSON
// unless its ClientsAllowCBOR gate is on, but it decodes every answer by
// the answer's own content type, through the config's NegotiatedSerializer.
// So a Client asks for CBOR per request (Accept "application/cbor" first,
// JSON as the fallback every API server answers with when it does not
// serve CBOR), decodes CBOR and CBOR-sequence watch streams with
// Serializer, and encodes a write's body itself: as CBOR once the server
// has answered that group version in CBOR, as JSON otherwise. A server
// that refuses a CBOR body (415 Unsupported Media Type) switches the
// client to JSON for good, and Do sends the write once more.
//
// Only plain Go types travel as CBOR: Safe tells which come back from CBOR
// equal to what they come back as from JSON.
package cborwire
