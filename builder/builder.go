package builder

import (
	"errors"
	"fmt"
	"strings"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
)

// Builder collects a controller's inputs and options; Complete builds it
// and adds it to the manager. Its methods return the Builder for chaining.
type Builder struct {
	mgr     *manager.Manager
	forIn   anyInput
	owns    []anyInput
	watches []anyInput
	filters []predicate.Predicate[object.Object]
	opts    []controller.Option
	name    string
	shard   *shardWiring // set by Sharded
	errs    []error
}

// ControllerManagedBy starts a controller for m.
func ControllerManagedBy(m *manager.Manager) *Builder { return &Builder{mgr: m} }

// For sets the primary kind (built with Kind): each of its events enqueues
// the object itself, and the controller is named after it unless Named says
// otherwise.
func (b *Builder) For(in KindInput) *Builder {
	switch {
	case b.forIn != nil:
		b.errs = append(b.errs, errors.New("For called twice: a controller has one primary kind (use Watches for more)"))
	case in.in == nil:
		b.errs = append(b.errs, errors.New("For: empty KindInput: build it with builder.Kind"))
	default:
		b.forIn = in.in
	}
	return b
}

// Owns adds a kind the primary kind creates (built with Kind): each of its
// events enqueues its controlling owner, if that owner is of the primary
// kind.
func (b *Builder) Owns(in KindInput) *Builder {
	if in.in == nil {
		b.errs = append(b.errs, errors.New("Owns: empty KindInput: build it with builder.Kind"))
		return b
	}
	b.owns = append(b.owns, in.in)
	return b
}

// Watches adds any kind with its own handler (built with Handle).
func (b *Builder) Watches(in HandlerInput) *Builder {
	if in.in == nil {
		b.errs = append(b.errs, errors.New("Watches: empty HandlerInput: build it with builder.Handle"))
		return b
	}
	b.watches = append(b.watches, in.in)
	return b
}

// WithEventFilter adds p to every input of the controller.
func (b *Builder) WithEventFilter(p predicate.Predicate[object.Object]) *Builder {
	b.filters = append(b.filters, p)
	return b
}

// WithOptions adds controller options (workers, rate limiter, timeouts…).
func (b *Builder) WithOptions(opts ...controller.Option) *Builder {
	b.opts = append(b.opts, opts...)
	return b
}

// Named names the controller (default: the primary kind, lower-cased). The
// name labels its metrics and logs and must be unique in the manager.
func (b *Builder) Named(name string) *Builder {
	b.name = name
	return b
}

// Complete builds the controller with r and adds it to the manager.
func (b *Builder) Complete(r reconcile.Reconciler) error {
	_, err := b.Build(r)
	return err
}

// Build is Complete that also returns the controller.
func (b *Builder) Build(r reconcile.Reconciler) (*controller.Controller, error) {
	c, err := b.build(r)
	switch {
	case err != nil && b.name == "":
		return nil, fmt.Errorf("builder: %w", err)
	case err != nil:
		return nil, fmt.Errorf("builder: controller %q: %w", b.name, err)
	}
	return c, nil
}

func (b *Builder) build(r reconcile.Reconciler) (*controller.Controller, error) {
	if err := errors.Join(b.errs...); err != nil {
		return nil, err
	}
	if b.forIn == nil {
		return nil, errors.New("no primary kind: call For")
	}
	if r == nil {
		return nil, errors.New("no reconciler")
	}
	f := b.mgr.Factory()
	primary, err := b.forIn.kind(f)
	if err != nil {
		return nil, fmt.Errorf("For: %w", err)
	}
	if b.name == "" {
		b.name = strings.ToLower(primary.Kind)
	}
	if err := b.shard.check(); err != nil {
		return nil, err
	}
	var srcs []controller.Source
	for _, g := range []struct {
		what string
		role role
		ins  []anyInput
	}{{"For", forRole, []anyInput{b.forIn}}, {"Owns", ownsRole, b.owns}, {"Watches", watchesRole, b.watches}} {
		for _, in := range g.ins {
			src, err := in.source(f, "", g.role, primary.GroupKind(), b.filters, b.shard)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", g.what, err)
			}
			srcs = append(srcs, src)
		}
	}
	opts, err := b.mgr.ControllerOptions(b.name)
	if err != nil {
		return nil, err
	}
	if sw := b.shard; sw != nil {
		for _, inf := range sw.informers {
			if err := b.mgr.ShardInformer(sw.ring, sw.field, inf); err != nil {
				return nil, fmt.Errorf("Sharded: %w", err)
			}
		}
		opts = append(opts, controller.WithSharding(sw.ring, sw.hash))
	}
	c, err := controller.New(b.name, r, append(opts, b.opts...)...)
	if err != nil {
		return nil, err
	}
	for _, src := range srcs {
		if err := c.Watch(src); err != nil {
			return nil, err
		}
	}
	if err := b.mgr.Add(c); err != nil {
		return nil, err
	}
	return c, nil
}
