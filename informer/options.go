package informer

import (
	"github.com/go-logr/logr"
	"k8s.io/utils/clock"

	"github.com/steadyctl/steady/reflector"
)

// Option configures an Informer.
type Option func(*options)

type options struct {
	name          string
	log           logr.Logger
	clock         clock.WithTicker
	reflectorOpts []reflector.Option
}

func newOptions(opts []Option) *options {
	o := &options{name: "informer", log: logr.Discard(), clock: clock.RealClock{}}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithName names the informer in logs, metrics and sync errors; use the
// resource, e.g. "pods" or "foos.example.com".
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithLogger sets the logger (default: discard).
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithClock sets the clock used for handler resyncs (tests pass a fake one).
func WithClock(c clock.WithTicker) Option { return func(o *options) { o.clock = c } }

// WithReflectorOptions passes options to the informer's reflector, e.g. its
// watch timeouts or initial list mode.
func WithReflectorOptions(opts ...reflector.Option) Option {
	return func(o *options) { o.reflectorOpts = append(o.reflectorOpts, opts...) }
}
