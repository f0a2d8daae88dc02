package informer

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/reflector"
)

// Option configures an Informer made by New. Every Option is also a
// FactoryOption: NewFactory passes WithLogger, WithClock,
// WithReflectorOptions and WithCompact on to each of its informers, and
// refuses WithName.
type Option func(*options)

// FactoryOption configures a Factory (NewFactory). It is every Option, and
// the options that configure a factory only — WithNamespace,
// WithNamespaces, WithKind, WithCacheSyncTimeout and WithKeepManagedFields
// — which are not Options, so that giving one to New does not compile.
type FactoryOption interface {
	applyToFactory(*options)
}

func (opt Option) applyToFactory(o *options) { opt(o) }

// factoryOnly is a FactoryOption that is not an Option.
type factoryOnly func(*options)

func (opt factoryOnly) applyToFactory(o *options) { opt(o) }

type options struct {
	name          string
	named         bool // WithName given, which a factory refuses
	log           logr.Logger
	clock         clock.WithTicker
	reflectorOpts []reflector.Option
	compact       bool
	compactGiven  bool // WithCompact given, not the default
	copyReads     bool // a shared cache's reads return deep copies: compact caches turned off by cluster.WithFastPaths(false)

	// Factory only.
	namespaces        []string // as given; nil: all namespaces
	namespacesOpt     string   // the option that set them, for errors
	syncTimeout       time.Duration
	keepManagedFields bool
	kinds             map[schema.GroupKind]KindOptions
	kindErr           error // WithKind given twice for a kind
}

func defaultOptions() *options {
	return &options{log: logr.Discard(), clock: clock.RealClock{}, syncTimeout: 2 * time.Minute, compact: true}
}

func newOptions(opts []Option) *options {
	o := defaultOptions()
	for _, opt := range opts {
		opt(o)
	}
	return o
}

func newFactoryOptions(opts []FactoryOption) *options {
	o := defaultOptions()
	for _, opt := range opts {
		opt.applyToFactory(o)
	}
	return o
}

// check reports an option that makes no sense for an informer or a
// factory alike.
func (o *options) check() error {
	if o.clock == nil {
		return errors.New("WithClock(nil)")
	}
	return nil
}

// WithName names the informer in logs, metrics and sync errors; use the
// resource, e.g. "pods" or "foos.example.com" (default "informer").
// NewFactory refuses it: a factory names each informer after its resource.
func WithName(name string) Option { return func(o *options) { o.name, o.named = name, true } }

// WithLogger sets the logger (default: discard).
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithClock sets the clock used for handler resyncs and for the times of
// Progress (default: the real clock; tests pass a fake one). nil is an
// error.
func WithClock(c clock.WithTicker) Option { return func(o *options) { o.clock = c } }

// WithReflectorOptions passes options to the informer's reflector, e.g. its
// watch timeouts or initial list mode.
func WithReflectorOptions(opts ...reflector.Option) Option {
	return func(o *options) { o.reflectorOpts = append(o.reflectorOpts, opts...) }
}

// WithNamespace restricts a Factory's caches of namespaced kinds to
// namespace (see Factory); "" (the default) and AllNamespaces leave them
// cluster-wide. With namespace-scoped RBAC, the only watches that can
// succeed are the ones in that namespace; a cluster-wide one would be
// refused forever. It is WithNamespaces(namespace) for one namespace; the
// last of the two given wins.
func WithNamespace(namespace string) FactoryOption {
	return factoryOnly(func(o *options) {
		o.namespaces, o.namespacesOpt = nil, fmt.Sprintf("WithNamespace(%q)", namespace)
		if namespace != "" && namespace != AllNamespaces {
			o.namespaces = []string{namespace}
		}
	})
}

// WithNamespaces restricts a Factory's caches of namespaced kinds to the
// given namespaces: a cache asked for namespace "" holds the objects of
// exactly these, fed by one list and watch per namespace (see Factory).
// It is the option for an operator whose RBAC grants a few namespaces,
// not the cluster. An empty list, an empty or invalid name, a name given
// twice, or AllNamespaces beside names is an error of NewFactory;
// WithNamespaces(AllNamespaces) is the default; of WithNamespace and
// WithNamespaces, the last given wins. WithKind overrides it for one kind.
func WithNamespaces(namespaces ...string) FactoryOption {
	return factoryOnly(func(o *options) {
		o.namespaces = append([]string{}, namespaces...) // non-nil: given
		o.namespacesOpt = fmt.Sprintf("WithNamespaces(%s)", quoteAll(namespaces))
	})
}

// WithCacheSyncTimeout bounds how long a read through package client waits for
// an informer's first list, whatever the read's context says (default two
// minutes). It must be positive.
func WithCacheSyncTimeout(d time.Duration) FactoryOption {
	return factoryOnly(func(o *options) { o.syncTimeout = d })
}

// WithKeepManagedFields(true) makes a Factory's informers keep
// metadata.managedFields. By default they are dropped before caching (see
// DropManagedFields): they are often half of a small object's size,
// controllers read them rarely, and an Update of a cached object without
// them leaves the server's copy as it is (the API server keeps
// managedFields that a write omits). Keep them if your controller reads
// them from the cache.
func WithKeepManagedFields(keep bool) FactoryOption {
	return factoryOnly(func(o *options) { o.keepManagedFields = keep })
}

// WithCompact sets whether an informer's cache is compact, or every cache
// of a Factory is (KindOptions.Shared makes one kind's shared). The
// default is compact where T has a compact form, which every pointer to a
// struct has: an informer of another type (an interface type, say) keeps
// decoded objects, and WithCompact(true) for one is an error of New. A
// compact cache keeps each object encoded
// — protobuf for the built-in kinds, fields by position for custom
// resources' Go types (or JSON, for a type with a field of an interface
// type or with a JSON encoding of its own), JSON for Unstructured — with
// the values of its indexes extracted when it is stored, and decodes it
// on every read. A ConfigMap then takes about 40% of the heap it takes
// decoded. Reads (Cache.Get, List, ByIndex, package client's reads,
// listers over Cache.Indexer) return objects the caller owns and may
// modify, as controller-runtime's cached client does by default by
// deep-copying; they cost a decode, or a DeepCopy for the last few
// hundred objects stored, which are kept decoded. Handlers still get
// decoded objects (see "Compact caches" in the package documentation).
// WithCompact(false) keeps the decoded objects instead, shared by every
// reader and handler: reads cost nothing, and must not modify what they
// get.
func WithCompact(compact bool) Option {
	return func(o *options) { o.compact, o.compactGiven = compact, true }
}

// withCopyReads makes a shared cache's reads return deep copies.
func withCopyReads(on bool) Option { return func(o *options) { o.copyReads = on } }
