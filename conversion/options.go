package conversion

import "github.com/go-logr/logr"

// Option configures the handler NewHandler returns.
type Option func(*options)

type options struct {
	log logr.Logger
}

// WithLogger sets where the handler logs: every failed conversion as an
// error, with the stack of a conversion function that panicked, and at
// V(1) every review it answered. Nothing is logged by default.
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

func newOptions(opts []Option) *options {
	o := &options{log: logr.Discard()}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return o
}
