package admission

import "github.com/go-logr/logr"

// Option configures a handler made by NewHandler, NewValidator or
// NewDefaulter.
type Option func(*options)

type options struct {
	log logr.Logger
}

// WithLogger sets where the handler logs: a panicking handler at error
// level with its stack, a request that is not a well-formed
// AdmissionReview at V(1). Nothing is logged by default. The logger also
// reaches the Handler, Validator or Defaulter through its context, as
// logr.FromContextOrDiscard(ctx).
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

func newOptions(opts []Option) options {
	o := options{log: logr.Discard()}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}
