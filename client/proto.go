package client

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/protowatch"
	"github.com/steadyctl/steady/object"
)

// protoWire is how a typed client of a built-in kind whose REST client
// speaks protobuf writes request bodies and reads answers itself
// (package protowatch): client-go's serializer copies the object's bytes
// into and out of an envelope and looks the kind up in the scheme each
// time. It also names each request's path once: client-go's Request joins
// it again from namespace, resource and name every time it needs the URL,
// several times a request. Everything else about the request (throttling,
// retries, warnings, metrics, errors) is still client-go's.
type protoWire struct {
	apiVersion, kind string
	prefix           string // the group version's API path: "/api/v1", "/apis/apps/v1"
}

// newProtoWire returns the protoWire of a typed client of T in gvk over
// rc, or nil if T has no protobuf code or rc does not speak protobuf.
func newProtoWire[T object.Object](gvk schema.GroupVersionKind, rc rest.Interface, protobuf bool) *protoWire {
	var zero T
	if _, ok := any(zero).(interface {
		protowatch.Object
		protowatch.Marshaler
	}); !ok || !protobuf {
		return nil
	}
	c, ok := rc.(*rest.RESTClient)
	if !ok {
		return nil
	}
	prefix := "/apis/" + gvk.Group + "/" + gvk.Version
	if gvk.Group == "" {
		prefix = "/api/" + gvk.Version
	}
	if c.Get().URL().Path != c.Get().AbsPath(prefix).URL().Path {
		return nil // a client of another API path: leave paths to client-go
	}
	return &protoWire{apiVersion: gvk.GroupVersion().String(), kind: gvk.Kind, prefix: prefix}
}

// at points req at namespace/name's subresource sub, as
// NamespaceIfScoped, Resource, Name and SubResource do.
func (c *Client[T]) at(req *rest.Request, namespace, name, sub string) *rest.Request {
	if c.proto != nil && name != "" && c.inPath(namespace) && pathSegment(name) && pathSegment(sub) {
		p := c.collectionPath(namespace) + "/" + name
		if sub != "" {
			p += "/" + sub
		}
		return req.AbsPath(p)
	}
	// client-go's builders, which also report a bad name or namespace.
	req = req.NamespaceIfScoped(namespace, c.namespaced).Resource(c.resource.Resource).Name(name)
	if sub != "" {
		req = req.SubResource(sub)
	}
	return req
}

// atCollection points req at the kind's objects in namespace, as
// NamespaceIfScoped and Resource do.
func (c *Client[T]) atCollection(req *rest.Request, namespace string) *rest.Request {
	if c.proto != nil && c.inPath(namespace) {
		return req.AbsPath(c.collectionPath(namespace))
	}
	return req.NamespaceIfScoped(namespace, c.namespaced).Resource(c.resource.Resource)
}

func (c *Client[T]) collectionPath(namespace string) string {
	if c.namespaced && namespace != "" {
		return c.proto.prefix + "/namespaces/" + namespace + "/" + c.resource.Resource
	}
	return c.proto.prefix + "/" + c.resource.Resource
}

// inPath reports whether namespace can be put in a path as it is, as
// pathSegment does, or left out (a cluster-scoped kind's). An empty
// namespace of a namespaced kind is client-go's to refuse: its builders
// fail such a request before sending it ("an empty namespace may not be
// set ..."), where the path without one names another resource, of which
// the API server would answer 404 Not Found or 405 Method Not Allowed.
func (c *Client[T]) inPath(namespace string) bool {
	return pathSegment(namespace) && (namespace != "" || !c.namespaced)
}

// pathSegment reports whether s can be put in a path as it is: what
// client-go's Name and Namespace accept (empty aside), and nothing that
// would need escaping or change the path.
func pathSegment(s string) bool {
	return s != "." && s != ".." && !strings.ContainsAny(s, "/%?#")
}

// send sends req with obj, encoded, as its body, and decodes the answer
// into out.
func (p *protoWire) send(ctx context.Context, req *rest.Request, obj, out runtime.Object) error {
	body, err := protowatch.Encode(p.apiVersion, p.kind, obj.(protowatch.Marshaler))
	if err != nil {
		return err
	}
	return p.into(req.SetHeader("Content-Type", runtime.ContentTypeProtobuf).Body(body).Do(ctx), out)
}

// into decodes res into out, a new object, as Result.Into does: itself
// when res is a protobuf answer holding one, else through client-go.
func (p *protoWire) into(res rest.Result, out runtime.Object) error {
	if err := res.Error(); err != nil {
		return err // what Into returns for it
	}
	var ct string
	res.ContentType(&ct)
	if mt, _, _ := strings.Cut(ct, ";"); strings.TrimSpace(mt) == runtime.ContentTypeProtobuf {
		body, _ := res.Raw()
		if ok, err := protowatch.Decode(body, p.kind, out.(protowatch.Object)); ok || err != nil {
			return err
		}
	}
	return res.Into(out)
}
