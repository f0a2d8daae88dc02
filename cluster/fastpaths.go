package cluster

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// FastPathsEnv names the environment variable that turns a process's fast
// paths off: STEADY_FAST_PATHS=off (or false, or 0, or no) makes every
// Cluster made without WithFastPaths use client-go's transport and codecs
// alone, as if each had been given WithFastPaths(false);
// STEADY_FAST_PATHS=off:http1,compact turns off only the fast paths named
// (see FastPath). Empty, on, true, 1 or yes leave them on; any other value
// is an error of New naming the variable. It is the switch for an operator
// in production whose owner wants steady's own wire code ruled out while
// chasing a problem, without a new build.
const FastPathsEnv = "STEADY_FAST_PATHS"

// FastPath names one of steady's own wire paths (see WithFastPaths), so
// that it can be turned off alone (WithoutFastPaths, FastPathsEnv).
type FastPath string

// The fast paths.
const (
	// FastHTTP1: requests over HTTP/1.1 made on the caller's goroutine
	// (package documentation, "Connections"), instead of net/http's
	// transport.
	FastHTTP1 FastPath = "http1"
	// FastProtobuf: steady's protobuf decoding of built-in kinds' lists
	// and watch events, and encoding of their writes, instead of
	// client-go's serializer (which still speaks protobuf).
	FastProtobuf FastPath = "protobuf"
	// FastCBOR: CBOR for custom resources (WithCBOR), and the cut of
	// managedFields from CBOR answers before they are decoded, instead of
	// JSON.
	FastCBOR FastPath = "cbor"
	// FastCompact: compact caches (informer.WithCompact), the default of
	// the informer factories made on the cluster, instead of caches of
	// decoded objects.
	FastCompact FastPath = "compact"
)

// FastPaths lists every fast path.
var FastPaths = []FastPath{FastHTTP1, FastProtobuf, FastCBOR, FastCompact}

// WithFastPaths sets whether the cluster uses steady's own wire code
// where it is faster than client-go's (default true, unless FastPathsEnv
// says off): every FastPath. It wins over FastPathsEnv; WithoutFastPaths
// then turns single paths off.
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

// WithoutFastPaths turns the fast paths named off, whatever WithFastPaths
// and FastPathsEnv say of the others. A name not in FastPaths is an error
// of New.
func WithoutFastPaths(paths ...FastPath) Option {
	paths = slices.Clone(paths)
	return func(o *options) { o.slowPaths = append(o.slowPaths, paths...) }
}

// fastPathsFromEnv reads FastPathsEnv: whether the fast paths are on, and
// the ones turned off alone.
func fastPathsFromEnv() (bool, []FastPath, error) {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(FastPathsEnv)))
	switch v {
	case "", "on", "true", "1", "yes":
		return true, nil, nil
	case "off", "false", "0", "no":
		return false, nil, nil
	}
	names, ok := strings.CutPrefix(v, "off:")
	if !ok {
		return false, nil, fmt.Errorf("%s=%q: want off, on, or off: and the fast paths to turn off (%s)", FastPathsEnv, os.Getenv(FastPathsEnv), fastPathNames())
	}
	var off []FastPath
	for n := range strings.SplitSeq(names, ",") {
		off = append(off, FastPath(strings.TrimSpace(n)))
	}
	if err := checkFastPaths(off); err != nil {
		return false, nil, fmt.Errorf("%s=%q: %w", FastPathsEnv, os.Getenv(FastPathsEnv), err)
	}
	return true, off, nil
}

// checkFastPaths reports a name that is not a FastPath.
func checkFastPaths(paths []FastPath) error {
	for _, p := range paths {
		if !slices.Contains(FastPaths, p) {
			return fmt.Errorf("no fast path %q (there are %s)", p, fastPathNames())
		}
	}
	return nil
}

func fastPathNames() string {
	var names []string
	for _, p := range FastPaths {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// fastPathSet resolves the options and the environment into the fast
// paths that are on.
func (o *options) fastPathSet() (map[FastPath]bool, error) {
	on, off := o.fastPaths, o.slowPaths
	if !o.fastPathsGiven {
		envOn, envOff, err := fastPathsFromEnv()
		if err != nil {
			return nil, err
		}
		on, off = envOn, append(envOff, off...)
	}
	if err := checkFastPaths(o.slowPaths); err != nil {
		return nil, fmt.Errorf("WithoutFastPaths: %w", err)
	}
	set := map[FastPath]bool{}
	for _, p := range FastPaths {
		set[p] = on && !slices.Contains(off, p)
	}
	return set, nil
}

// FastPaths reports whether the cluster uses all of steady's own wire
// code (see WithFastPaths): false if any FastPath is off.
func (c *Cluster) FastPaths() bool {
	for _, p := range FastPaths {
		if !c.fast[p] {
			return false
		}
	}
	return true
}

// FastPath reports whether the cluster uses fast path p.
func (c *Cluster) FastPath(p FastPath) bool { return c.fast[p] }
