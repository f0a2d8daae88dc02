package cluster

import (
	"os"
	"strings"
)

// FastPathsEnv names the environment variable that turns a process's fast
// paths off: STEADY_FAST_PATHS=off (or false, or 0) makes every Cluster
// made without WithFastPaths use client-go's transport and codecs alone,
// as if each had been given WithFastPaths(false). It is the switch for an
// operator in production whose owner wants steady's own wire code ruled
// out while chasing a problem, without a new build.
const FastPathsEnv = "STEADY_FAST_PATHS"

// WithFastPaths sets whether the cluster uses steady's own wire code
// where it is faster than client-go's (default true, unless FastPathsEnv
// says off):
//
//   - requests over HTTP/1.1 made on the caller's goroutine (package
//     documentation, "Connections"), instead of net/http's transport;
//   - protobuf decoding of built-in kinds' lists and watch events and
//     encoding of their writes, instead of client-go's serializer;
//   - CBOR for custom resources (WithCBOR), and the cut of managedFields
//     from CBOR answers before they are decoded, instead of JSON;
//   - compact caches (informer.WithCompact), the default of the informer
//     factories made on the cluster, instead of caches of decoded objects.
//
// With false, every request goes through client-go's rest client and
// net/http (on the protocol WithHTTP2 chooses), every object is decoded by
// apimachinery's serializers (protobuf for built-in kinds, as
// controller-runtime does, JSON for custom resources), and informer
// factories keep decoded objects unless told WithCompact(true), whose
// reads return copies. What a controller sees is the same either way:
// objects, events, and the API server's errors. Transport errors may
// differ: over HTTP/1.1, a write sent on a pooled connection the server
// has just closed fails with EOF through net/http, as with client-go,
// where the fast path dials again. The cost of each fast path against its
// gain is measured in bench/README.md.
func WithFastPaths(on bool) Option {
	return func(o *options) { o.fastPaths, o.fastPathsGiven = on, true }
}

// fastPathsDefault is the default of WithFastPaths: on unless FastPathsEnv
// says off.
func fastPathsDefault() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(FastPathsEnv))) {
	case "off", "false", "0", "no":
		return false
	}
	return true
}

// FastPaths reports whether the cluster uses steady's own wire code (see
// WithFastPaths).
func (c *Cluster) FastPaths() bool { return c.fast }
