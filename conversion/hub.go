package conversion

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// Hub marks the version of a kind that every other version converts
// through: the API server's request to convert between two spokes becomes
// spoke -> hub -> spoke. It is usually the storage version. The method
// does nothing; its presence is the mark.
type Hub interface {
	runtime.Object
	Hub()
}

// Convertible is a version of a kind other than its hub: it converts
// itself to the hub and fills itself from the hub. The argument is the
// hub's Go type, which the method asserts. Both methods must leave the
// metadata alone apart from labels and annotations (see the package
// documentation).
type Convertible interface {
	runtime.Object
	ConvertTo(dst Hub) error
	ConvertFrom(src Hub) error
}

var (
	hubType         = reflect.TypeFor[Hub]()
	convertibleType = reflect.TypeFor[Convertible]()
)

// CheckKind reports whether gk can be converted by NewHandler's handler:
// scheme registers it in exactly one version whose Go type is a Hub, and
// every other version's Go type is Convertible. The error names the kind
// and the versions at fault. Call it at start-up, or in a test, for every
// kind whose CRD has a conversion webhook.
func CheckKind(scheme *runtime.Scheme, gk schema.GroupKind) error {
	_, err := hubVersion(scheme, gk)
	return err
}

// hubVersion returns the hub of gk after checking gk as CheckKind does.
func hubVersion(scheme *runtime.Scheme, gk schema.GroupKind) (schema.GroupVersionKind, error) {
	if scheme == nil {
		return schema.GroupVersionKind{}, errors.New("conversion: nil scheme")
	}
	types := map[string]reflect.Type{}
	for gvk, t := range scheme.AllKnownTypes() {
		if gvk.GroupKind() == gk && gvk.Version != runtime.APIVersionInternal {
			types[gvk.Version] = reflect.PointerTo(t)
		}
	}
	if len(types) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("conversion: kind %s is not registered in the scheme", gk)
	}
	// Most stable version first, so that messages do not change from run to run.
	versions := make([]string, 0, len(types))
	for v := range types {
		versions = append(versions, v)
	}
	slices.SortFunc(versions, func(a, b string) int { return version.CompareKubeAwareVersionStrings(b, a) })

	var hubs []string
	for _, v := range versions {
		switch t := types[v]; {
		case t.Implements(hubType):
			hubs = append(hubs, v)
		case !t.Implements(convertibleType):
			return schema.GroupVersionKind{}, fmt.Errorf("conversion: kind %s version %s (%v) is neither a Hub nor Convertible: "+
				"give it a Hub() method or ConvertTo(conversion.Hub) error and ConvertFrom(conversion.Hub) error", gk, v, t)
		}
	}
	switch len(hubs) {
	case 0:
		return schema.GroupVersionKind{}, fmt.Errorf("conversion: kind %s has no hub: none of its versions (%s) has a Hub() method",
			gk, strings.Join(versions, ", "))
	case 1:
		return gk.WithVersion(hubs[0]), nil
	default:
		return schema.GroupVersionKind{}, fmt.Errorf("conversion: kind %s has %d hubs (%s): exactly one version may have a Hub() method",
			gk, len(hubs), strings.Join(hubs, ", "))
	}
}
