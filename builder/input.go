package builder

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/predicate"
)

// KindInput is a kind that For or Owns watches, with its predicates: For
// enqueues each of its objects, Owns each object's controlling owner.
// Build it with Kind; Watches takes a HandlerInput instead, so passing one
// where the other belongs does not compile. The zero KindInput is an error
// of Complete.
type KindInput struct{ in anyInput }

// HandlerInput is a kind that Watches watches, with the handler that maps
// its events to requests and its predicates. Build it with Handle; For and
// Owns take a KindInput instead, so passing one where the other belongs
// does not compile. The zero HandlerInput, or one whose handler is nil, is
// an error of Complete.
type HandlerInput struct{ in anyInput }

// anyInput is what KindInput and HandlerInput carry: an input[T] of some T.
type anyInput interface {
	// kind resolves the input's group/version/kind.
	kind(f *informer.Factory) (schema.GroupVersionKind, error)
	// source builds the input's controller source for its role.
	source(f *informer.Factory, namespace string, r role, owner schema.GroupKind, filters []predicate.Predicate[object.Object], sw *shardWiring) (controller.Source, error)
}

// role is how an input's events become requests.
type role int

const (
	forRole     role = iota // the object itself
	ownsRole                // its controlling owner of the primary kind
	watchesRole             // the input's own handler
)

// Kind is an input of kind T (obj's type; obj's content is used only for an
// Unstructured's or PartialObjectMetadata's apiVersion and kind), filtered
// by preds, for For and Owns.
func Kind[T object.Object](obj T, preds ...predicate.Predicate[T]) KindInput {
	return KindInput{&input[T]{obj: obj, preds: preds}}
}

// Handle is an input of kind T whose events h maps to requests, filtered by
// preds, for Watches.
func Handle[T object.Object](obj T, h handler.EventHandler[T], preds ...predicate.Predicate[T]) HandlerInput {
	return HandlerInput{&input[T]{obj: obj, preds: preds, h: h}}
}

type input[T object.Object] struct {
	obj   T
	preds []predicate.Predicate[T]
	h     handler.EventHandler[T]
}

func (in *input[T]) kind(f *informer.Factory) (schema.GroupVersionKind, error) {
	switch any(in.obj).(type) {
	case *unstructured.Unstructured, *metav1.PartialObjectMetadata:
		if event.IsNil(in.obj) {
			return schema.GroupVersionKind{}, fmt.Errorf("%T needs an object with apiVersion and kind set", in.obj)
		}
		gvk := in.obj.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" || gvk.Version == "" {
			return gvk, fmt.Errorf("%T needs apiVersion and kind set to say what it watches", in.obj)
		}
		return gvk, nil
	}
	return cluster.KindOf[T](f.Cluster())
}

func (in *input[T]) informer(f *informer.Factory, gvk schema.GroupVersionKind, namespace string) (*informer.Informer[T], error) {
	var inf any
	var err error
	switch any(in.obj).(type) {
	case *unstructured.Unstructured:
		inf, err = informer.ForUnstructured(f, gvk, namespace, object.Selector{})
	case *metav1.PartialObjectMetadata:
		inf, err = informer.ForMetadata(f, gvk, namespace, object.Selector{})
	default:
		return informer.For[T](f, namespace, object.Selector{})
	}
	if err != nil {
		return nil, err
	}
	return inf.(*informer.Informer[T]), nil
}

func (in *input[T]) source(f *informer.Factory, namespace string, r role, owner schema.GroupKind, filters []predicate.Predicate[object.Object], sw *shardWiring) (controller.Source, error) {
	if r == watchesRole && in.h == nil {
		return nil, errors.New("Handle needs a handler: say how its events map to requests")
	}
	gvk, err := in.kind(f)
	if err != nil {
		return nil, err
	}
	inf, err := in.informer(f, gvk, namespace)
	if err != nil {
		return nil, err
	}
	var h handler.EventHandler[T]
	switch r {
	case forRole:
		h = handler.EnqueueObject[T]()
	case ownsRole:
		h = handler.EnqueueOwner[T](owner, handler.OnlyController())
	default:
		h = in.h
	}
	h = wire(sw, r, inf, h)
	preds := append([]predicate.Predicate[T]{}, in.preds...)
	for _, p := range filters {
		preds = append(preds, predicate.ForKind[T](p))
	}
	return controller.Informer(inf, h, preds...), nil
}
