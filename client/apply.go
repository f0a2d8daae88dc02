package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/reconcile"
)

// ApplyOption configures Apply and ApplyStatus.
type ApplyOption func(*applyOptions)

type applyOptions struct {
	manager    string
	managerSet bool
	force      bool
}

// FieldManager names the field manager the applied fields belong to
// (controller-runtime's client.FieldOwner). Without it, an apply made during a reconcile uses the name of the
// controller running it (reconcile.ControllerName), and an apply made
// anywhere else is an error: the API server needs a field manager for
// every apply, and a made-up one would leave fields nobody recognizes.
//
// A field manager owns exactly the fields it applied last: fields it
// stops setting are removed (unless another manager also set them), so
// each actor that applies to an object should have a name of its own and
// keep it across restarts. Create, Update and Patch name theirs in the
// FieldManager field of their metav1 options; the API server defaults it
// from the client's user agent.
func FieldManager(name string) ApplyOption {
	return func(o *applyOptions) { o.manager, o.managerSet = name, true }
}

// ForceOwnership makes the apply take over fields that another field
// manager set to a different value, instead of failing with an
// ApplyConflictError: kubectl's --force-conflicts, controller-runtime's
// client.ForceOwnership (a value there, a call here). A controller that is the one authority on the
// fields it applies (its child objects, say) usually wants it; without it
// a conflict is reported so that a person's or another controller's
// change is not overwritten silently.
func ForceOwnership() ApplyOption {
	return func(o *applyOptions) { o.force = true }
}

// Apply sends a Server-Side Apply patch made of cfg, an apply
// configuration of the client's kind: one of client-go's generated ones
// (k8s.io/client-go/applyconfigurations/...; corev1ac.ConfigMap(name,
// namespace).WithData(...)) or, for custom resources without generated
// ones, ApplyConfigurationFromUnstructured. The API server creates the
// object if it does not exist, sets the fields cfg sets, removes those the
// field manager set before and cfg no longer sets, and returns the object
// it stored.
//
// cfg must name the object (a name, and a namespace for namespaced kinds)
// and carry the client's apiVersion and kind. The field manager is
// FieldManager's, or the running controller's name; with neither,
// Apply fails. A field another manager owns with a different value fails
// the apply with an *ApplyConflictError (apierrors.IsConflict is true for
// it too), unless ForceOwnership is given.
//
// Unlike Update, Apply needs no resourceVersion and never conflicts with
// a concurrent writer of other fields, so it needs no retry loop.
func (c *Client[T]) Apply(ctx context.Context, cfg runtime.ApplyConfiguration, opts ...ApplyOption) (T, error) {
	return c.apply(ctx, cfg, "", opts)
}

// ApplyStatus is Apply for the status subresource: only the status of cfg
// is saved, and the object must exist. The API server keeps a field
// manager's status fields apart from the fields the same manager applied
// to the object itself, so one controller may use its name for both.
func (c *Client[T]) ApplyStatus(ctx context.Context, cfg runtime.ApplyConfiguration, opts ...ApplyOption) (T, error) {
	return c.apply(ctx, cfg, "status", opts)
}

func (c *Client[T]) apply(ctx context.Context, cfg runtime.ApplyConfiguration, sub string, opts []ApplyOption) (T, error) {
	var zero T
	verb := "apply"
	if sub != "" {
		verb = "apply " + sub + " of"
	}
	namespace, name, data, err := c.applyBody(cfg)
	if err != nil {
		return zero, fmt.Errorf("%s %s: %w", verb, c.resource, err)
	}
	var o applyOptions
	for _, opt := range opts {
		opt(&o)
	}
	manager, err := o.fieldManager(ctx)
	if err != nil {
		return zero, fmt.Errorf("%s %s %s: %w", verb, c.resource, objectKey(namespace, name), err)
	}
	po := metav1.PatchOptions{FieldManager: manager}
	if o.force {
		po.Force = &o.force
	}
	out, err := c.patch(ctx, "apply", namespace, name, sub, types.ApplyPatchType, data, []metav1.PatchOptions{po})
	if conflicts := fieldConflicts(err); len(conflicts) > 0 {
		return zero, &ApplyConflictError{Resource: c.resource, Key: objectKey(namespace, name), Subresource: sub,
			Manager: manager, Conflicts: conflicts, err: err}
	}
	return out, err
}

// fieldManager returns the explicit field manager, else the running
// controller's name.
func (o applyOptions) fieldManager(ctx context.Context) (string, error) {
	switch {
	case o.managerSet && o.manager == "":
		return "", errors.New("FieldManager: empty field manager name")
	case o.managerSet:
		return o.manager, nil
	}
	if name, ok := reconcile.ControllerName(ctx); ok {
		return name, nil
	}
	return "", errors.New("no field manager: pass client.FieldManager(name), or apply from a reconcile, whose controller's name is the default")
}

// applyHeader is what Apply needs to know of an apply configuration.
type applyHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// applyBody encodes cfg and checks that it names an object of the client's
// kind, in a namespace if and only if the kind is namespaced. It reads the
// encoded body rather than cfg's Go fields, so that every apply
// configuration, generated or not, is checked the same way.
func (c *Client[T]) applyBody(cfg runtime.ApplyConfiguration) (namespace, name string, data []byte, err error) {
	if cfg == nil {
		return "", "", nil, errors.New("nil apply configuration")
	}
	data, err = json.Marshal(cfg)
	if err != nil {
		return "", "", nil, fmt.Errorf("encoding the apply configuration %T: %w", cfg, err)
	}
	var h applyHeader
	if string(data) == "null" || json.Unmarshal(data, &h) != nil {
		return "", "", nil, fmt.Errorf("the apply configuration %T is not an object", cfg)
	}
	namespace, name = h.Metadata.Namespace, h.Metadata.Name
	key := objectKey(namespace, name)
	gv, _ := schema.ParseGroupVersion(h.APIVersion)
	switch {
	case name == "":
		return "", "", nil, fmt.Errorf("the apply configuration %T names no object: set its name", cfg)
	case h.APIVersion == "" || h.Kind == "":
		return "", "", nil, fmt.Errorf("%s: the apply configuration has no apiVersion or kind (want %s %s)", key, c.gvk.GroupVersion(), c.gvk.Kind)
	case gv.WithKind(h.Kind) != c.gvk:
		return "", "", nil, fmt.Errorf("%s: the apply configuration is a %s %s, the client's kind is %s %s", key, h.APIVersion, h.Kind, c.gvk.GroupVersion(), c.gvk.Kind)
	case c.namespaced && namespace == "":
		return "", "", nil, fmt.Errorf("%s: the apply configuration has no namespace, and %s are namespaced", name, c.resource)
	case !c.namespaced && namespace != "":
		return "", "", nil, fmt.Errorf("%s: the apply configuration has namespace %q, but %s are cluster-scoped", key, namespace, c.resource)
	}
	return namespace, name, data, nil
}

// ApplyConfigurationFromUnstructured makes an apply configuration of u,
// for kinds without generated apply configurations (most custom
// resources): u holds apiVersion, kind, metadata.name (and namespace) and
// exactly the fields to apply, as it would in a YAML file given to
// kubectl apply --server-side.
//
// Build u by hand, not by converting a Go object: a converted object
// carries every zero-valued field it has (an empty spec.replicas: 0, a
// creationTimestamp: null), and applying them claims those fields with
// those values.
func ApplyConfigurationFromUnstructured(u *unstructured.Unstructured) runtime.ApplyConfiguration {
	return unstructuredApply{u}
}

type unstructuredApply struct{ u *unstructured.Unstructured }

// IsApplyConfiguration marks unstructuredApply as an apply configuration.
func (unstructuredApply) IsApplyConfiguration() {}

// MarshalJSON encodes the unstructured object's content.
func (a unstructuredApply) MarshalJSON() ([]byte, error) {
	if a.u == nil {
		return []byte("null"), nil
	}
	return json.Marshal(a.u.Object)
}
