package cluster

import (
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
// Its requests ask for an object's metadata unless they set another Accept
// header, as a list must ("application/json;as=PartialObjectMetadataList;
// g=meta.k8s.io;v=v1"); encode their options with metav1.ParameterCodec.
// Clients are made once per group version and shared.
func (c *Cluster) MetadataRESTClientFor(gv schema.GroupVersion) (rest.Interface, error) {
	return c.restClient(restKey{gv: gv, form: "metadata"}, func(cfg *rest.Config) *rest.Config {
		cfg.NegotiatedSerializer = metainternalversionscheme.Codecs.WithoutConversion()
		cfg.AcceptContentTypes = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
		cfg.ContentType = runtime.ContentTypeJSON
		return cfg
	})
}
