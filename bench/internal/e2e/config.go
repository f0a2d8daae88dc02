package e2e

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// LoadConfig reads the kubeconfig at path and sets what both children, and
// the parent's own client, use for kind (see Tune).
func LoadConfig(path string, kind Kind) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	Tune(cfg, kind)
	return cfg, nil
}

// Tune sets on cfg the content type for kind and no client-side rate limit
// (what controller-runtime's config loader sets; the benchmark measures the
// frameworks, not a token bucket).
//
// ConfigMaps: protobuf (what controller-runtime picks for built-in types
// when ContentType is unset; steady's clients take it from the config).
// Custom resources: the content type is left unset, as in the config an
// operator loads: the API server serves custom resources as JSON (and as
// CBOR with its CBORServingAndStorage gate, -apiserver-feature-gates),
// controller-runtime then picks JSON for kinds outside client-go's scheme,
// and steady's clients ask for CBOR first and take JSON otherwise. (A
// config that asks for protobuf breaks controller-runtime's writes of
// custom resources: it would encode them as protobuf.)
func Tune(cfg *rest.Config, kind Kind) {
	cfg.ContentType = runtime.ContentTypeProtobuf
	if kind == KindCR {
		cfg.ContentType = ""
	}
	cfg.QPS = -1
	cfg.Burst = 0
}
