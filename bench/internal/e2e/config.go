package e2e

import (
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// LoadConfig reads the kubeconfig at path and sets what both children, and
// the parent's own client, use (see Tune).
func LoadConfig(path string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	Tune(cfg)
	return cfg, nil
}

// Tune sets on cfg no client-side rate limit (what controller-runtime's
// config loader sets; the benchmark measures the frameworks, not a token
// bucket). The content type is left as the kubeconfig loads it, unset, as
// in the config an operator loads, and each framework picks its own:
// protobuf for the built-in kinds (ConfigMaps) in both; for custom
// resources, which the API server serves as JSON (and as CBOR with its
// CBORServingAndStorage gate, -apiserver-feature-gates), JSON in
// controller-runtime, and CBOR first and JSON otherwise in steady.
func Tune(cfg *rest.Config) {
	cfg.QPS = -1
	cfg.Burst = 0
}
