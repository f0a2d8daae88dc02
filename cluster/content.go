package cluster

import (
	"mime"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/cborwire"
)

// The interfaces apimachinery's protobuf serializer encodes through; a Go
// type with none of them cannot be sent as protobuf.
var protobufMarshallers = []reflect.Type{
	reflect.TypeFor[runtime.ProtobufMarshaller](),
	reflect.TypeFor[runtime.ProtobufReverseMarshaller](),
	reflect.TypeFor[interface{ Marshal() ([]byte, error) }](),
}

// protobufEncodes reports whether every Go type the scheme has for gv can
// be encoded as protobuf. Custom resources' types (as kubebuilder
// generates them) cannot, and the API server serves custom resources as
// JSON only.
func (c *Cluster) protobufEncodes(gv schema.GroupVersion) bool {
	for _, t := range c.scheme.KnownTypes(gv) {
		p, ok := reflect.PointerTo(t), false
		for _, m := range protobufMarshallers {
			ok = ok || p.Implements(m)
		}
		if !ok {
			return false
		}
	}
	return true
}

// ProtobufFor reports whether the typed clients of the API group version
// gv (RESTClientFor, CacheClientFor, and the informers and clients built on
// them) speak protobuf. They do when every Go type the scheme has for gv
// has a protobuf form and either the cluster's config asks for protobuf or
// it names no content type and gv is a built-in group version (its Go
// types come from k8s.io/api): the choice controller-runtime
// makes, as the built-in kinds decode several times faster from protobuf
// than from JSON. A config naming another content type keeps it. Custom
// resources' Go types have no protobuf form: the API server serves them
// as JSON or CBOR only.
func (c *Cluster) ProtobufFor(gv schema.GroupVersion) bool {
	if c.cfg.ContentType == "" {
		return c.builtin(gv) && c.protobufEncodes(gv)
	}
	return isProtobuf(c.cfg.ContentType) && c.protobufEncodes(gv)
}

// isProtobuf reports whether contentType names protobuf.
func isProtobuf(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == runtime.ContentTypeProtobuf
}

// builtin reports whether gv is a built-in group version of the cluster's
// scheme: one whose Go types come from k8s.io/api, the API types
// kube-apiserver itself serves (with the option types apimachinery adds to
// every group version). A program's own kinds, even when registered in
// client-go's scheme as operators often do for their custom resources,
// live elsewhere, and the API server never serves custom resources as
// protobuf.
func (c *Cluster) builtin(gv schema.GroupVersion) bool {
	api := false
	for _, t := range c.scheme.KnownTypes(gv) {
		switch p := t.PkgPath(); {
		case strings.HasPrefix(p, "k8s.io/api/"):
			api = true
		case !strings.HasPrefix(p, "k8s.io/apimachinery/"):
			return false
		}
	}
	return api
}

// setContentType sets cfg, a typed client's config for gv, to send
// protobuf where ProtobufFor says so, and JSON where the cluster's config
// asks for protobuf that gv's Go types have not. Answers are decoded by
// their content type, so an Accept header that lists protobuf first is
// kept: the API server answers JSON for kinds it cannot send as protobuf.
func (c *Cluster) setContentType(cfg *rest.Config, gv schema.GroupVersion) {
	switch {
	case c.ProtobufFor(gv):
		cfg.ContentType = runtime.ContentTypeProtobuf
	case isProtobuf(cfg.ContentType):
		cfg.ContentType = runtime.ContentTypeJSON
	}
}

// WithCBOR(false) keeps typed clients of custom resources on JSON. By
// default (true) RESTClientFor's client of a group version whose Go types
// have no protobuf form and travel as CBOR unchanged (plain data: no
// runtime.RawExtension, interface or custom JSON marshaller; see the
// package documentation) asks for CBOR, which API servers with the
// CBORServingAndStorage feature gate serve and which decodes faster than
// JSON; other servers answer JSON. client-go's equivalent is its
// ClientsAllowCBOR and ClientsPreferCBOR feature gates, read from the
// environment; steady does not read them. CBOR is a fast path: with
// WithFastPaths(false) custom resources travel as JSON whatever this says.
func WithCBOR(prefer bool) Option { return func(o *options) { o.cbor = prefer } }

// prefersCBOR reports whether the typed client of gv asks for CBOR.
func (c *Cluster) prefersCBOR(gv schema.GroupVersion) bool {
	return c.fast[FastCBOR] && c.cbor && !c.protobufEncodes(gv) && cborwire.Eligible(c.scheme, gv)
}
