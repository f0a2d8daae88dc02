package cborwire

import (
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
)

// Serializer returns the scheme's serializers, JSON, YAML, protobuf and
// CBOR, for a REST client of typed objects. A watch answered in CBOR comes
// as a CBOR sequence ("application/cbor-seq"), which client-go looks up by
// that media type only when its own CBOR gate is on: Serializer lists it
// as CBOR's stream form. With dropManagedFields, objects decoded from CBOR
// come without metadata.managedFields, which are not decoded at all.
func Serializer(scheme *runtime.Scheme, dropManagedFields bool) runtime.NegotiatedSerializer {
	ns := serializer.NewCodecFactory(scheme, serializer.WithSerializer(cbor.NewSerializerInfo)).WithoutConversion()
	infos := slices.Clone(ns.SupportedMediaTypes())
	for i, info := range infos {
		if info.MediaType == runtime.ContentTypeCBOR {
			if dropManagedFields {
				info.Serializer = droppingDecoder{info.Serializer}
				infos[i] = info
			}
			seq := info
			seq.MediaType, seq.MediaTypeSubType = runtime.ContentTypeCBORSequence, "cbor-seq"
			infos = append(infos, seq)
			break
		}
	}
	return withCBORSequence{ns, infos}
}

type withCBORSequence struct {
	runtime.NegotiatedSerializer
	infos []runtime.SerializerInfo
}

func (s withCBORSequence) SupportedMediaTypes() []runtime.SerializerInfo { return s.infos }

// Eligible reports whether the scheme's Go types of gv, other than the
// option and event types every group version registers from metav1, are
// all Safe: only then does a client of gv ask for CBOR.
func Eligible(scheme *runtime.Scheme, gv schema.GroupVersion) bool {
	types := scheme.KnownTypes(gv)
	n := 0
	for _, t := range types {
		if t.PkgPath() == metav1Path {
			continue
		}
		if !Safe(t) {
			return false
		}
		n++
	}
	return n > 0
}

var metav1Path = reflect.TypeFor[metav1.ListOptions]().PkgPath()
