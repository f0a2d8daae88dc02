package cluster

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/cborwire"
)

// Cluster holds the clients of one API server. Its methods are safe for
// concurrent use.
type Cluster struct {
	cfg    *rest.Config
	http   *http.Client // every client's; see transport.go
	scheme *runtime.Scheme
	cbor   bool              // see WithCBOR
	fast   map[FastPath]bool // see WithFastPaths; read only
	codecs runtime.NegotiatedSerializer
	params runtime.ParameterCodec
	mapper meta.ResettableRESTMapper
	dyn    dynamic.Interface
	meta   metadata.Interface

	mu   sync.Mutex
	rest map[restKey]rest.Interface
}

// Option configures a Cluster.
type Option func(*options)

type options struct {
	scheme         *runtime.Scheme
	cbor           bool
	http2          bool
	fastPaths      bool
	fastPathsGiven bool
	slowPaths      []FastPath // WithoutFastPaths
}

// WithScheme sets the scheme that maps Go types to kinds. Without it the
// cluster knows no Go types: unstructured and metadata-only objects work,
// typed ones need their group versions added to a scheme given here, as an
// operator's main.go does (corev1.AddToScheme and its own API's
// AddToScheme), or client-go's kubernetes/scheme.Scheme, every built-in
// kind. steady does not link client-go's scheme unless the program does:
// registering every built-in group at start costs a process several MiB
// of memory and milliseconds of CPU. manager.New has no default either,
// where controller-runtime's manager defaults to client-go's scheme.
func WithScheme(s *runtime.Scheme) Option { return func(o *options) { o.scheme = s } }

// New returns a Cluster for the API server at cfg. It makes no request:
// discovery is read when a kind is first mapped.
func New(cfg *rest.Config, opts ...Option) (*Cluster, error) {
	if cfg == nil {
		return nil, fmt.Errorf("cluster: nil rest.Config")
	}
	o := options{scheme: runtime.NewScheme(), cbor: true}
	for _, opt := range opts {
		opt(&o)
	}
	if o.scheme == nil {
		return nil, fmt.Errorf("cluster: WithScheme(nil)")
	}
	fast, err := o.fastPathSet()
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	hc, err := newHTTPClient(cfg, o.http2, fast[FastHTTP1])
	if err != nil {
		return nil, err
	}
	mapper, err := newMapper(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("cluster: discovery client: %w", err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("cluster: dynamic client: %w", err)
	}
	md, err := metadata.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("cluster: metadata client: %w", err)
	}
	return &Cluster{
		cfg:    rest.CopyConfig(cfg),
		http:   hc,
		scheme: o.scheme,
		cbor:   o.cbor,
		fast:   fast,
		codecs: serializer.NewCodecFactory(o.scheme).WithoutConversion(),
		params: runtime.NewParameterCodec(o.scheme),
		mapper: mapper,
		dyn:    dyn,
		meta:   md,
		rest:   make(map[restKey]rest.Interface),
	}, nil
}

// Config returns a copy of the cluster's rest.Config.
func (c *Cluster) Config() *rest.Config { return rest.CopyConfig(c.cfg) }

// Scheme returns the scheme that maps Go types to kinds.
func (c *Cluster) Scheme() *runtime.Scheme { return c.scheme }

// ParameterCodec encodes options structs (metav1.ListOptions and the like)
// as query parameters, for the scheme's kinds.
func (c *Cluster) ParameterCodec() runtime.ParameterCodec { return c.params }

// Dynamic returns the dynamic client (objects as Unstructured).
func (c *Cluster) Dynamic() dynamic.Interface { return c.dyn }

// Metadata returns the metadata-only client (PartialObjectMetadata).
func (c *Cluster) Metadata() metadata.Interface { return c.meta }

// RESTMapping returns the resource and scope of gvk, found through the API
// server's discovery (cached; read again once for a kind it does not know).
func (c *Cluster) RESTMapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// The discovery cache may predate the kind: a CRD installed after
		// the first look. Read discovery again, once.
		c.mapper.Reset()
		m, err = c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: no resource for %s: %w", gvk, err)
	}
	return m, nil
}

// RESTMapper returns the cluster's REST mapper, for code that takes a
// meta.RESTMapper. Prefer RESTMapping, which re-reads discovery for kinds
// installed later.
func (c *Cluster) RESTMapper() meta.RESTMapper { return c.mapper }

// RESTClientFor returns the REST client for the API group version gv that
// encodes and decodes the scheme's typed objects, as a generated clientset
// does. It speaks the config's content type, except that a config asking
// for protobuf gets JSON for a group version whose Go types have no
// protobuf form, such as a custom resource's: the API server serves those
// as JSON or CBOR only. For such a group version, unless WithCBOR(false),
// the client prefers CBOR answers (see the package documentation): its
// requests carry their own Accept header, in place of the config's
// AcceptContentTypes.
// Clients are made once per group version and shared.
func (c *Cluster) RESTClientFor(gv schema.GroupVersion) (rest.Interface, error) {
	return c.typedClient(gv, false)
}

// CacheClientFor returns the REST client an informer of gv's typed
// objects lists and watches with: RESTClientFor's, but with
// dropManagedFields, objects it decodes from CBOR come without
// metadata.managedFields, which it does not decode at all (decoding them
// is most of the cost of a custom resource's CBOR). Informers that drop
// managedFields anyway use it; a client whose answers the caller gets
// must not.
func (c *Cluster) CacheClientFor(gv schema.GroupVersion, dropManagedFields bool) (rest.Interface, error) {
	return c.typedClient(gv, dropManagedFields && c.prefersCBOR(gv))
}

// typedClient returns the REST client of gv's typed objects, dropping
// managedFields from CBOR answers if dropManaged.
func (c *Cluster) typedClient(gv schema.GroupVersion, dropManaged bool) (rest.Interface, error) {
	key := restKey{gv: gv, form: "typed"}
	if dropManaged {
		key.form = "typed, managedFields dropped"
	}
	if c.prefersCBOR(gv) {
		return c.restClientMade(key, func(cfg *rest.Config) (rest.Interface, error) {
			c.setContentType(cfg, gv)
			return cborwire.New(cfg, c.http, c.scheme, dropManaged)
		})
	}
	return c.restClient(key, func(cfg *rest.Config) *rest.Config {
		cfg.NegotiatedSerializer = c.codecs
		c.setContentType(cfg, gv)
		return cfg
	})
}

// restKey names one of the cluster's REST clients: a group version and the
// form of the objects it decodes.
type restKey struct {
	gv   schema.GroupVersion
	form string
}

// restClient returns the REST client key names, made on first use from
// the cluster's config as configure sets it up.
func (c *Cluster) restClient(key restKey, configure func(*rest.Config) *rest.Config) (rest.Interface, error) {
	return c.restClientMade(key, func(cfg *rest.Config) (rest.Interface, error) {
		rc, err := rest.RESTClientForConfigAndClient(configure(cfg), c.http)
		if err != nil {
			return nil, err
		}
		return rc, nil
	})
}

// restClientMade returns the REST client key names, which newClient makes on
// first use from a copy of the cluster's config for key's group version.
func (c *Cluster) restClientMade(key restKey, newClient func(*rest.Config) (rest.Interface, error)) (rest.Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rc, ok := c.rest[key]; ok {
		return rc, nil
	}
	cfg := rest.CopyConfig(c.cfg)
	cfg.GroupVersion = &key.gv
	cfg.APIPath = "/apis"
	if key.gv.Group == "" {
		cfg.APIPath = "/api"
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := newClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: %s REST client for %s: %w", key.form, key.gv, err)
	}
	c.rest[key] = rc
	return rc, nil
}

// KindOf returns the kind of the typed object T (a pointer type such as
// *corev1.Pod) as registered in c's scheme.
func KindOf[T runtime.Object](c *Cluster) (schema.GroupVersionKind, error) {
	var zero T
	typ := reflect.TypeOf(zero)
	if typ == nil || typ.Kind() != reflect.Pointer {
		return schema.GroupVersionKind{}, fmt.Errorf("want a pointer type such as *corev1.Pod, not %v", typ)
	}
	gvks, _, err := c.scheme.ObjectKinds(reflect.New(typ.Elem()).Interface().(T))
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("%T is not in the scheme (add its group version to the scheme given to cluster.WithScheme or manager.WithScheme%s): %w", zero, schemeHint(typ.Elem()), err)
	}
	return gvks[0], nil
}

// schemeHint names, for a type of a built-in API group, the call that
// adds its group version to a scheme; it is empty for other types.
func schemeHint(typ reflect.Type) string {
	pkg := typ.PkgPath()
	rest, ok := strings.CutPrefix(pkg, "k8s.io/api/")
	if !ok || strings.Count(rest, "/") != 1 {
		return ""
	}
	return fmt.Sprintf(": the AddToScheme of %s, or client-go's kubernetes/scheme.AddToScheme for every built-in kind", pkg)
}
