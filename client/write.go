package client

import (
	"context"
	"fmt"

	"github.com/steadyctl/steady/internal/cborwire"
	"github.com/steadyctl/steady/object"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// Create creates obj and returns the object the server stored.
func (c *Client[T]) Create(ctx context.Context, obj T, opts ...metav1.CreateOptions) (T, error) {
	if err := c.writable("create", obj); err != nil {
		var zero T
		return zero, err
	}
	return c.send(ctx, obj, "create", func() *rest.Request {
		return withOptions(c.atCollection(c.rest.Post(), obj.GetNamespace()), opts, c.params)
	})
}

// Update replaces obj and returns the object the server stored, failing
// with 409 Conflict (apierrors.IsConflict) if the object changed on the
// server since obj's resourceVersion. Modify retries such conflicts for you.
func (c *Client[T]) Update(ctx context.Context, obj T, opts ...metav1.UpdateOptions) (T, error) {
	return c.put(ctx, obj, "", opts)
}

// UpdateStatus replaces obj's status subresource, as Update does.
func (c *Client[T]) UpdateStatus(ctx context.Context, obj T, opts ...metav1.UpdateOptions) (T, error) {
	return c.put(ctx, obj, "status", opts)
}

// Patch applies a patch of type pt (types.MergePatchType,
// types.JSONPatchType, types.StrategicMergePatchType or
// types.ApplyPatchType) to namespace/name and returns the patched object.
// For Server-Side Apply, Apply is the simpler call: it takes an apply
// configuration, defaults the field manager and reports conflicts as an
// ApplyConflictError.
func (c *Client[T]) Patch(ctx context.Context, namespace, name string, pt types.PatchType, data []byte, opts ...metav1.PatchOptions) (T, error) {
	return c.patch(ctx, "patch", namespace, name, "", pt, data, opts)
}

// PatchStatus patches the status subresource of namespace/name, as Patch
// does.
func (c *Client[T]) PatchStatus(ctx context.Context, namespace, name string, pt types.PatchType, data []byte, opts ...metav1.PatchOptions) (T, error) {
	return c.patch(ctx, "patch", namespace, name, "status", pt, data, opts)
}

// Delete deletes namespace/name. Deleting an object that is already gone
// returns a NotFound API error.
func (c *Client[T]) Delete(ctx context.Context, namespace, name string, opts ...metav1.DeleteOptions) error {
	res := c.at(c.rest.Delete(), namespace, name, "").Body(first(opts)).Do(ctx)
	if err := res.Error(); err != nil {
		return fmt.Errorf("delete %s %s: %w", c.resource, objectKey(namespace, name), err)
	}
	answer, _ := res.Get() // what the server said is only a hint for recordDelete
	c.recordDelete(ctx, namespace, name, answer)
	return nil
}

// DeleteAllOf deletes every object in namespace ("" for cluster-scoped
// kinds, or all namespaces) that sel selects, in one request.
func (c *Client[T]) DeleteAllOf(ctx context.Context, namespace string, sel object.Selector, opts ...metav1.DeleteOptions) error {
	if err := sel.Validate(); err != nil {
		return fmt.Errorf("delete all %s: %w", c.resource, err)
	}
	list := metav1.ListOptions{LabelSelector: sel.Labels, FieldSelector: sel.Fields}
	err := c.rest.Delete().NamespaceIfScoped(namespace, c.namespaced && namespace != "").Resource(c.resource.Resource).
		VersionedParams(&list, c.params).Body(first(opts)).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("delete all %s in %q: %w", c.resource, namespace, err)
	}
	return nil
}

func (c *Client[T]) put(ctx context.Context, obj T, sub string, opts []metav1.UpdateOptions) (T, error) {
	if err := c.writable("update", obj); err != nil {
		var zero T
		return zero, err
	}
	verb := "update"
	if sub != "" {
		verb = "update " + sub + " of"
	}
	return c.send(ctx, obj, verb, func() *rest.Request {
		return withOptions(c.at(c.rest.Put(), obj.GetNamespace(), obj.GetName(), sub), opts, c.params)
	})
}

// patch sends a patch of namespace/name or its subresource sub; verb
// ("patch", "apply") is for errors.
func (c *Client[T]) patch(ctx context.Context, verb, namespace, name, sub string, pt types.PatchType, data []byte, opts []metav1.PatchOptions) (T, error) {
	req := withOptions(c.at(c.rest.Patch(pt), namespace, name, sub), opts, c.params).Body(data)
	if sub != "" {
		verb += " " + sub + " of"
	}
	return c.write(ctx, req, verb, namespace, name)
}

// do sends req and decodes the answer; namespace and name are for errors.
func (c *Client[T]) do(ctx context.Context, req *rest.Request, verb, namespace, name string) (T, error) {
	out := c.newObj()
	var err error
	if c.proto != nil {
		err = c.proto.into(req.Do(ctx), out)
	} else {
		err = req.Do(ctx).Into(out)
	}
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s %s %s: %w", verb, c.resource, objectKey(namespace, name), err)
	}
	return out, nil
}

// send sends the write that build begins with obj as its body, encoded
// as the client's REST client writes (CBOR where it prefers it and the
// server serves it, see cborwire.Do), and records it as write does; verb
// is for errors.
func (c *Client[T]) send(ctx context.Context, obj T, verb string, build func() *rest.Request) (T, error) {
	out := c.newObj()
	var err error
	if c.proto != nil {
		err = c.proto.send(ctx, build(), obj, out)
	} else {
		err = cborwire.Do(ctx, c.rest, obj, out, build)
	}
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s %s %s: %w", verb, c.resource, objectKey(obj.GetNamespace(), obj.GetName()), err)
	}
	c.recordWrite(ctx, out)
	return out, nil
}

// write sends req, a write, as do does, and records it for the running
// reconcile.
func (c *Client[T]) write(ctx context.Context, req *rest.Request, verb, namespace, name string) (T, error) {
	out, err := c.do(ctx, req, verb, namespace, name)
	if err == nil {
		c.recordWrite(ctx, out)
	}
	return out, err
}
