package cluster

import (
	"mime"
	"reflect"

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

// jsonUnlessProtobuf makes cfg, a typed client's config for gv, send JSON
// when it asks for protobuf but the scheme's types of gv have no protobuf
// form: a config that asks for protobuf for the built-in kinds then also
// works for custom resources. Answers are decoded by their content type,
// so an Accept header that lists protobuf first is kept: the API server
// answers JSON for kinds it cannot send as protobuf.
func (c *Cluster) jsonUnlessProtobuf(cfg *rest.Config, gv schema.GroupVersion) {
	if mt, _, err := mime.ParseMediaType(cfg.ContentType); err != nil || mt != runtime.ContentTypeProtobuf {
		return
	}
	if !c.protobufEncodes(gv) {
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
// environment; steady does not read them.
func WithCBOR(prefer bool) Option { return func(o *options) { o.cbor = prefer } }

// prefersCBOR reports whether the typed client of gv asks for CBOR.
func (c *Cluster) prefersCBOR(gv schema.GroupVersion) bool {
	return c.cbor && !c.protobufEncodes(gv) && cborwire.Eligible(c.scheme, gv)
}
