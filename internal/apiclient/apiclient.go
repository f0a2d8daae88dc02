package apiclient

import (
	"fmt"
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// Client is a REST client of one group version.
type Client struct {
	// REST sends the requests; paths are under the group version.
	REST rest.Interface
	// Params encodes the group version's option types (GetOptions,
	// ListOptions, ...) as query parameters, for VersionedParams.
	Params runtime.ParameterCodec
}

// Accept is the Accept header of a Client that speaks protobuf: protobuf,
// or JSON from a server (or proxy) that will not send it.
const Accept = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON

// codecs are the serializer and parameter codec of one group version.
type codecs struct {
	serializer runtime.NegotiatedSerializer
	params     runtime.ParameterCodec
}

// registry holds the codecs of each group version, made on first use: a
// scheme is built once per process, not once per client.
var registry sync.Map // schema.GroupVersion → func() (*codecs, error)

func codecsFor(gv schema.GroupVersion, add func(*runtime.Scheme) error) (*codecs, error) {
	build := sync.OnceValues(func() (*codecs, error) {
		s := runtime.NewScheme()
		if err := add(s); err != nil {
			return nil, fmt.Errorf("registering %s: %w", gv, err)
		}
		// The options, watch event and status types in the core group
		// version "v1" too, where a server's unversioned answers name
		// them.
		metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
		return &codecs{
			serializer: serializer.NewCodecFactory(s).WithoutConversion(),
			params:     runtime.NewParameterCodec(s),
		}, nil
	})
	got, _ := registry.LoadOrStore(gv, build)
	return got.(func() (*codecs, error))()
}

// New returns a Client of group version gv, whose types add registers, for
// the API server at cfg (which it does not modify), sending through hc
// (the cluster's HTTP client). It speaks protobuf, accepting JSON, unless
// cfg names a content type.
func New(cfg *rest.Config, hc *http.Client, gv schema.GroupVersion, add func(*runtime.Scheme) error) (*Client, error) {
	c, err := codecsFor(gv, add)
	if err != nil {
		return nil, fmt.Errorf("making the %s client: %w", gv, err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = c.serializer
	if cfg.ContentType == "" {
		cfg.ContentType = runtime.ContentTypeProtobuf
		if cfg.AcceptContentTypes == "" {
			cfg.AcceptContentTypes = Accept
		}
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := rest.RESTClientForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("making the %s client for %s: %w", gv, cfg.Host, err)
	}
	return &Client{REST: rc, Params: c.params}, nil
}

// SharedThrottle returns a copy of cfg whose client-side throttle is one
// rate limiter, so that the Clients made with it share the QPS and Burst
// cfg sets, as a clientset's clients do, instead of each having its own.
// A config with a RateLimiter, or without a QPS, is copied as it is.
func SharedThrottle(cfg *rest.Config) (*rest.Config, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, fmt.Errorf("rest.Config: QPS %g without a RateLimiter needs a Burst above 0", cfg.QPS)
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	return cfg, nil
}
