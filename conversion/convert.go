package conversion

import (
	"encoding/json"
	"fmt"
	"runtime/debug"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/conversion/internal/metadata"
)

// convert converts the i-th object of a review, given as JSON, to the
// version dst, and returns the kind and version it was in. guess is that
// of the object before; see decode. The error is the message the API
// server shows: the object, both versions and what went wrong.
func (h *handler) convert(i int, raw []byte, dst schema.GroupVersion, guess schema.GroupVersionKind) (
	out []byte, srcGVK schema.GroupVersionKind, err error) {
	var hd header
	defer func() {
		if err != nil {
			err = fmt.Errorf("%s %s from %s to %s: %w", orDefault(hd.Kind, "object"),
				orDefault(key(hd.Metadata.Namespace, hd.Metadata.Name), fmt.Sprintf("request.objects[%d]", i)),
				orDefault(hd.APIVersion, "(no apiVersion)"), dst, err)
		}
	}()
	defer func() {
		// A broken conversion function, or JSON method of a Go type, must
		// cost one failed review, not the webhook's process.
		if p := recover(); p != nil {
			h.log.Error(fmt.Errorf("panic: %v", p), "conversion panicked", "kind", hd.Kind,
				"object", key(hd.Metadata.Namespace, hd.Metadata.Name), "stack", string(debug.Stack()))
			out, err = nil, fmt.Errorf("conversion panicked: %v", p)
		}
	}()
	src, srcGVK, err := h.decode(raw, dst, guess, &hd)
	switch {
	case err != nil:
		return nil, srcGVK, err
	case src == nil:
		return raw, srcGVK, nil // nothing to convert: the very bytes the API server sent
	}
	out, err = h.convertTyped(src, dst.WithKind(srcGVK.Kind))
	return out, srcGVK, err
}

func (h *handler) convertTyped(src runtime.Object, dstGVK schema.GroupVersionKind) ([]byte, error) {
	dst, err := h.scheme.New(dstGVK)
	if err != nil {
		return nil, fmt.Errorf("version %s of kind %s is not registered in the scheme", dstGVK.Version, dstGVK.GroupKind())
	}
	if err := h.hubAndSpoke(src, dst, dstGVK.GroupKind()); err != nil {
		return nil, err
	}
	if err := metadata.Keep(src, dst); err != nil {
		return nil, err
	}
	dst.GetObjectKind().SetGroupVersionKind(dstGVK)
	out, err := json.Marshal(dst)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", dst, err)
	}
	return out, nil
}

// hubAndSpoke converts src into dst: directly when either is the hub,
// through a new hub object otherwise.
func (h *handler) hubAndSpoke(src, dst runtime.Object, gk schema.GroupKind) error {
	if hub, ok := src.(Hub); ok {
		spoke, ok := dst.(Convertible)
		if !ok {
			return fmt.Errorf("%T is not Convertible", dst)
		}
		return spoke.ConvertFrom(hub)
	}
	spoke, ok := src.(Convertible)
	if !ok {
		return fmt.Errorf("%T is neither a Hub nor Convertible", src)
	}
	if hub, ok := dst.(Hub); ok {
		return spoke.ConvertTo(hub)
	}
	to, ok := dst.(Convertible)
	if !ok {
		return fmt.Errorf("%T is neither a Hub nor Convertible", dst)
	}
	hubGVK, err := h.hub(gk)
	if err != nil {
		return err
	}
	obj, err := h.scheme.New(hubGVK)
	if err != nil {
		return fmt.Errorf("hub %s: %w", hubGVK.Version, err)
	}
	hub, ok := obj.(Hub)
	if !ok { // hubVersion checked the type, unless the scheme changed since
		return fmt.Errorf("hub %s: %T is not a Hub", hubGVK.Version, obj)
	}
	if err := spoke.ConvertTo(hub); err != nil {
		return fmt.Errorf("to the hub %s: %w", hubGVK.Version, err)
	}
	if err := to.ConvertFrom(hub); err != nil {
		return fmt.Errorf("from the hub %s: %w", hubGVK.Version, err)
	}
	return nil
}

// key names an object as client-go's cache keys do.
func key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
