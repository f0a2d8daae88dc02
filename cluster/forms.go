package cluster

import (
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// UnstructuredRESTClientFor returns the REST client for the API group
// version gv that encodes and decodes *unstructured.Unstructured (JSON),
// for kinds with or without Go types, as the dynamic client does. Encode
// its requests' options with metav1.ParameterCodec, which serves every
// group version. Clients are made once per group version and shared.
func (c *Cluster) UnstructuredRESTClientFor(gv schema.GroupVersion) (rest.Interface, error) {
	return c.restClient(restKey{gv: gv, form: "unstructured"}, dynamic.ConfigFor)
}

// MetadataRESTClientFor returns the REST client for the API group version
// gv that decodes the API server's metadata-only answers,
// *metav1.PartialObjectMetadata and its list, as the metadata client does.
// Its GET and PATCH requests ask for an object's metadata; a list must ask
// for a list of them itself, with the Accept header
// "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1".
// Encode its requests' options with metav1.ParameterCodec. Clients are
// made once per group version and shared.
func (c *Cluster) MetadataRESTClientFor(gv schema.GroupVersion) (rest.Interface, error) {
	rc, err := c.restClient(restKey{gv: gv, form: "metadata"}, func(cfg *rest.Config) *rest.Config {
		cfg.NegotiatedSerializer = metainternalversionscheme.Codecs.WithoutConversion()
		cfg.AcceptContentTypes = runtime.ContentTypeJSON
		cfg.ContentType = runtime.ContentTypeJSON
		return cfg
	})
	if err != nil {
		return nil, err
	}
	return metadataREST{rc}, nil
}

// metadataAccept asks for an object's metadata only.
const metadataAccept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"

// metadataREST asks for metadata on the requests that return one object.
// Others keep plain JSON: the API server refuses a request for
// PartialObjectMetadata that returns a list (a DELETE of a collection).
type metadataREST struct{ rest.Interface }

func (m metadataREST) Get() *rest.Request {
	return m.Interface.Get().SetHeader("Accept", metadataAccept)
}

func (m metadataREST) Patch(pt types.PatchType) *rest.Request {
	return m.Interface.Patch(pt).SetHeader("Accept", metadataAccept)
}
