package e2e

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// LoadConfig reads the kubeconfig at path and sets what both children, and
// the parent's own client, use: protobuf on the wire (what
// controller-runtime picks for built-in types when ContentType is unset;
// steady's clients take it from the config) and no client-side rate limit
// (what controller-runtime's config loader sets; the benchmark measures the
// frameworks, not a token bucket).
func LoadConfig(path string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	Tune(cfg)
	return cfg, nil
}

// Tune sets the content type and rate limit LoadConfig describes on cfg.
func Tune(cfg *rest.Config) {
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.QPS = -1
	cfg.Burst = 0
}
