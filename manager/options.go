package manager

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/webhook"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Option configures a Manager. Without options a Manager caches the
// built-in kinds of client-go's scheme in all namespaces, serves no HTTP
// endpoints and runs without leader election.
type Option func(*options)

type options struct {
	scheme            *runtime.Scheme
	cache             []informer.FactoryOption // what to cache, passed to the factory
	keepManagedFields bool
	log               logr.Logger
	metricsAddr       string
	healthAddr        string
	pprofAddr         string
	registry          *prometheus.Registry
	leaderElection    *LeaderElection
	cacheSyncTimeout  time.Duration
	shutdownTimeout   time.Duration
	throttle          *cluster.Throttle
	cbor              *bool              // WithCBOR; nil for the cluster's default
	fastPaths         *bool              // WithFastPaths; nil for the cluster's default (FastPathsEnv)
	slowPaths         []cluster.FastPath // WithoutFastPaths
	http2             bool               // WithAPIServerHTTP2
	eventBurst        int
	eventEvery        time.Duration
	certFile, keyFile string // WithServingCertificate
	clientCAFile      string
	insecureServing   bool
	webhook           []webhook.Option // WithWebhookServer
	certSecret        *types.NamespacedName
	certs             []certs.Option // WithWebhookCertificates
}

// WithScheme sets the scheme that maps Go types to kinds. Without it the
// manager knows no Go types, as cluster.New: unstructured and
// metadata-only objects work, and a typed kind is an error naming it and
// this option when a controller or client of it is made. Give the scheme
// of the kinds the operator uses (corev1.AddToScheme, the operator's own
// API's AddToScheme), or client-go's kubernetes/scheme.Scheme for every
// built-in kind, as kubebuilder's main.go does. Unlike controller-runtime,
// the manager does not default to client-go's scheme: linking it
// registers every built-in API group when the program starts, whether or
// not the operator uses them.
func WithScheme(s *runtime.Scheme) Option { return func(o *options) { o.scheme = s } }

// WithNamespace restricts every cache of a namespaced kind to namespace
// (default: all namespaces). A client or informer asked for namespace ""
// then gets this namespace, and one asked for another namespace is an
// error at construction naming both, never a silent cluster-wide watch
// (which namespace-scoped RBAC would refuse forever). Pass
// informer.AllNamespaces to ask for a cluster-wide cache explicitly.
// Cluster-scoped kinds are not affected. It is WithNamespaces(namespace);
// see informer.WithNamespace.
func WithNamespace(namespace string) Option { return cacheOption(informer.WithNamespace(namespace)) }

// WithNamespaces restricts every cache of a namespaced kind to the given
// namespaces, as WithNamespace does to one (controller-runtime's
// cache.Options.DefaultNamespaces): a client or informer asked for
// namespace "" caches exactly these namespaces' objects, through one
// list and watch per namespace, which RBAC granted in each namespace
// allows; one asked for another namespace is an error naming it and the
// set. An empty list, empty or repeated names are errors of New. WithKind
// gives a kind namespaces of its own. See informer.WithNamespaces.
func WithNamespaces(namespaces ...string) Option {
	return cacheOption(informer.WithNamespaces(namespaces...))
}

// WithKind sets how kind gk is cached: its own namespaces, label and field
// selector, a transform, or not cached at all, so that clients read it
// from the API server (controller-runtime's cache.Options.ByObject and
// client.CacheOptions.DisableFor). See informer.KindOptions:
//
//	manager.WithKind(schema.GroupKind{Kind: "Secret"}, informer.KindOptions{Uncached: true})
func WithKind(gk schema.GroupKind, ko informer.KindOptions) Option {
	return cacheOption(informer.WithKind(gk, ko))
}

func cacheOption(opt informer.FactoryOption) Option {
	return func(o *options) { o.cache = append(o.cache, opt) }
}

// WithKeepManagedFields(true) keeps metadata.managedFields in the caches.
// By default they are dropped before caching, which saves memory and
// start-up time; writes of cached objects are unaffected, as the API
// server keeps the managedFields a write omits (see
// informer.WithKeepManagedFields).
func WithKeepManagedFields(keep bool) Option { return func(o *options) { o.keepManagedFields = keep } }

// WithLogger sets the logger of the manager, its caches and its
// controllers. The default writes info lines at V(0) and every error to
// standard error, so that reconcile errors are seen even where no logger
// was set up; logr.Discard() turns logging off.
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithMetricsAddr serves /metrics at addr, e.g. ":8443" or "127.0.0.1:0"
// for a free port (see Manager.MetricsAddr), over HTTPS to clients the API
// server authenticates and authorizes for "get" on the non-resource URL
// /metrics (see WithServingCertificate, WithInsecureServing and package
// serving). Default: not served.
func WithMetricsAddr(addr string) Option { return func(o *options) { o.metricsAddr = addr } }

// WithHealthAddr serves /healthz and /readyz at addr. Default: not served.
func WithHealthAddr(addr string) Option { return func(o *options) { o.healthAddr = addr } }

// WithPprofAddr serves Go's runtime profiles (net/http/pprof's handlers)
// under /debug/pprof/ at addr, e.g. "127.0.0.1:8082" or "127.0.0.1:0" for a
// free port (see Manager.PprofAddr), with the lifecycle of the metrics
// server. Default: not served. The profiles show the process's internals
// and a CPU profile costs CPU while it runs: bind to localhost or keep the
// port off the Service. Requests are protected as the metrics endpoint's
// are, for their own paths (/debug/pprof/...).
func WithPprofAddr(addr string) Option { return func(o *options) { o.pprofAddr = addr } }

// WithEventRateLimit bounds the Events each reporting controller (a
// recorder's name) writes about one object, per type (Normal, Warning): at
// most burst at once, then one every interval, as client-go's core/v1
// recorder does with its defaults, 25 and 5 minutes, which are this
// option's too. Events over the limit are dropped. An events.k8s.io/v1
// Event that repeats one already written joins its series without counting
// against the limit: it costs no write of its own (see
// Manager.EventRecorderFor). Both recorders take this limit.
func WithEventRateLimit(burst int, interval time.Duration) Option {
	return func(o *options) { o.eventBurst, o.eventEvery = burst, interval }
}

// WithRegistry collects the metrics in r (default: a new registry with the
// Go and process collectors).
func WithRegistry(r *prometheus.Registry) Option { return func(o *options) { o.registry = r } }

// WithLeaderElection runs controllers only on the replica that holds the
// Lease that le names.
func WithLeaderElection(le LeaderElection) Option {
	return func(o *options) { o.leaderElection = &le }
}

// WithCacheSyncTimeout bounds the wait for the caches at Start, and a
// client read's wait for a cache's first list (see package client);
// default two minutes.
func WithCacheSyncTimeout(d time.Duration) Option { return func(o *options) { o.cacheSyncTimeout = d } }

// WithShutdownTimeout bounds how long Start waits, after its context is
// done, for controllers to finish their reconciles, and then for the
// Events they recorded to be written; default 30 s each.
func WithShutdownTimeout(d time.Duration) Option { return func(o *options) { o.shutdownTimeout = d } }

// WithCBOR(false) keeps the manager's clients and caches of custom
// resources on JSON; by default they prefer CBOR where the API server
// serves it (cluster.WithCBOR, whose documentation says for which Go
// types).
func WithCBOR(prefer bool) Option { return func(o *options) { o.cbor = &prefer } }

// WithFastPaths(false) turns off steady's own wire code in the manager's
// clients and caches: its HTTP/1.1 requests, protobuf and CBOR codecs and
// compact caches (cluster.WithFastPaths, which lists them), so that
// everything goes through client-go's transport and apimachinery's
// serializers. By default they are on, unless the environment variable
// STEADY_FAST_PATHS=off (cluster.FastPathsEnv) says otherwise: the switch
// for an operator in production, without a new build.
func WithFastPaths(on bool) Option { return func(o *options) { o.fastPaths = &on } }

// WithoutFastPaths turns the fast paths named off alone
// (cluster.WithoutFastPaths); STEADY_FAST_PATHS=off:http1,compact says the
// same from the environment.
func WithoutFastPaths(paths ...cluster.FastPath) Option {
	paths = slices.Clone(paths)
	return func(o *options) { o.slowPaths = append(o.slowPaths, paths...) }
}

// WithAPIServerHTTP2(true) lets the manager's connections to the API
// server speak HTTP/2; by default they speak HTTP/1.1 (cluster.WithHTTP2,
// whose package documentation says why). The name says which side it
// concerns because the manager also runs servers: the webhook server's
// HTTP/2 is webhook.WithHTTP2, kubebuilder's --enable-http2.
func WithAPIServerHTTP2(on bool) Option { return func(o *options) { o.http2 = on } }

// WithThrottle sets the client-side throttling of every request the
// manager, its caches and its clients make (see cluster.Throttle),
// replacing the config's QPS, Burst and RateLimiter. Default: the
// config's own, or cluster.DefaultThrottle (20 requests/s, burst 30) when
// it has none (QPS and Burst 0, no RateLimiter), where client-go would
// apply 5/s. cluster.ClientGoThrottle keeps client-go's default,
// cluster.NoThrottle turns it off for servers with API Priority and
// Fairness. A Throttle that fails Validate is an error of New.
func WithThrottle(t cluster.Throttle) Option {
	return func(o *options) { o.throttle = &t }
}

// LeaderElection configures the coordination.k8s.io Lease that elects the
// replica that runs controllers. The elector follows the protocol of
// client-go's leaderelection, so that replicas built on either (during a
// migration from controller-runtime) share the Lease.
type LeaderElection struct {
	// Name and Namespace name the Lease. Name is required. Namespace
	// defaults to the pod's own ($POD_NAMESPACE, else its service
	// account's namespace), where an operator's RBAC grants the Lease, as
	// controller-runtime's does; outside a pod it must be given, and New
	// fails without it.
	Name, Namespace string
	// Identity names this replica in the Lease; default hostname and a
	// random suffix.
	Identity string
	// LeaseDuration is how long a standby waits after the last renewal
	// before taking over (default 15 s); RenewDeadline is how long the
	// leader keeps trying to renew before it gives up (default 10 s);
	// RetryPeriod is the interval between attempts (default 2 s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

func newOptions(opts []Option) (*options, error) {
	o := &options{scheme: runtime.NewScheme(), log: defaultLogger(),
		cacheSyncTimeout: 2 * time.Minute, shutdownTimeout: 30 * time.Second,
		eventBurst: 25, eventEvery: 5 * time.Minute}
	for _, opt := range opts {
		opt(o)
	}
	switch {
	case o.scheme == nil:
		return nil, errors.New("manager: WithScheme(nil)")
	case o.cacheSyncTimeout <= 0:
		return nil, fmt.Errorf("manager: WithCacheSyncTimeout(%s): must be positive", o.cacheSyncTimeout)
	case o.shutdownTimeout <= 0:
		return nil, fmt.Errorf("manager: WithShutdownTimeout(%s): must be positive", o.shutdownTimeout)
	case o.eventBurst <= 0 || o.eventEvery <= 0:
		return nil, fmt.Errorf("manager: WithEventRateLimit(%d, %s): burst and interval must be positive", o.eventBurst, o.eventEvery)
	}
	for _, ep := range o.endpoints() {
		if _, _, err := net.SplitHostPort(ep.addr); ep.addr != "" && err != nil {
			return nil, fmt.Errorf("manager: %s(%q): %w", ep.option, ep.addr, err)
		}
	}
	if o.throttle != nil {
		if err := o.throttle.Validate(); err != nil {
			return nil, fmt.Errorf("manager: WithThrottle: %w", err)
		}
	}
	if o.log.GetSink() == nil {
		o.log = logr.Discard()
	}
	if le := o.leaderElection; le != nil {
		if le.Name == "" {
			return nil, errors.New("manager: WithLeaderElection: LeaderElection.Name (the Lease's name) is required")
		}
		if le.Namespace == "" {
			ns, err := PodNamespace()
			switch {
			case err != nil:
				return nil, fmt.Errorf("manager: WithLeaderElection: LeaderElection.Namespace is empty: %w", err)
			case ns == "":
				return nil, fmt.Errorf("manager: WithLeaderElection: LeaderElection.Namespace is empty, and this process is not in a pod (no $POD_NAMESPACE, no %s): name the Lease's namespace", serviceAccountNamespace)
			}
			le.Namespace = ns
		}
		if le.LeaseDuration == 0 {
			le.LeaseDuration = 15 * time.Second
		}
		if le.RenewDeadline == 0 {
			le.RenewDeadline = 10 * time.Second
		}
		if le.RetryPeriod == 0 {
			le.RetryPeriod = 2 * time.Second
		}
	}
	return o, nil
}
