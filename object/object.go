package object

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Object is any API object with object metadata, such as *corev1.Pod,
// *unstructured.Unstructured or *metav1.PartialObjectMetadata. Steady's
// generic types and functions take it as their constraint, so code that
// handles objects never needs a type assertion.
type Object interface {
	metav1.Object
	runtime.Object
}

// Key returns obj's key: "namespace/name", or "name" for a cluster-scoped
// object. The key of a nil obj, typed or not, is "", which names no
// object.
func Key(obj metav1.Object) string {
	if isNil(obj) {
		return ""
	}
	return FormatKey(types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()})
}

// FormatKey returns the key of the object n names: "namespace/name", or
// "name" when the namespace is empty. Unlike n.String, it does not put a
// slash in front of a cluster-scoped name.
func FormatKey(n types.NamespacedName) string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// ParseKey is the inverse of FormatKey: it splits key at its first slash
// into namespace and name. A key without a slash is a cluster-scoped name.
// Neither namespaces nor names may contain a slash, so every key made by Key
// or FormatKey parses back to what it was made from.
func ParseKey(key string) types.NamespacedName {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		return types.NamespacedName{Name: key}
	}
	return types.NamespacedName{Namespace: ns, Name: name}
}
