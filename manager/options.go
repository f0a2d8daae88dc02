package manager

import (
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/informer"
)

// Options configure a Manager. The zero value is valid: the built-in kinds
// of client-go's scheme, all namespaces, no HTTP servers, no leader
// election.
type Options struct {
	// Scheme maps Go types to kinds; default client-go's
	// kubernetes/scheme.Scheme. Add custom resources' types to a scheme of
	// your own that includes it.
	Scheme *runtime.Scheme
	// Namespace restricts every cache of a namespaced kind to one
	// namespace; "" caches all. With it set, a client or informer asked
	// for namespace "" gets this namespace, and one asked for another
	// namespace is an error at construction naming both, never a silent
	// cluster-wide watch (which namespace-scoped RBAC would refuse
	// forever). Pass informer.AllNamespaces to ask for a cluster-wide
	// cache explicitly. Cluster-scoped kinds are not affected.
	Namespace string
	// Selectors restricts the caches of some kinds to the objects that
	// match, e.g. {Kind: "Secret"}: {Labels: "app=mine"}; the builder and
	// clients then see only those (controller-runtime's cache ByObject).
	Selectors map[schema.GroupKind]informer.Selectors
	// KeepManagedFields keeps metadata.managedFields in the caches. By
	// default they are dropped before caching, which saves memory and
	// start-up time; writes of cached objects are unaffected, as the API
	// server keeps the managedFields a write omits (see
	// informer.Factory.SetKeepManagedFields).
	KeepManagedFields bool
	// Logger receives the manager's, the caches' and the controllers' logs.
	Logger logr.Logger

	// MetricsAddr is where /metrics is served, e.g. ":8080" or
	// "127.0.0.1:0" for a free port (see Manager.MetricsAddr); "" serves
	// none.
	MetricsAddr string
	// HealthAddr is where /healthz and /readyz are served; "" serves none.
	HealthAddr string
	// Registry collects the metrics; default a new registry with the Go
	// and process collectors.
	Registry *prometheus.Registry

	// LeaderElection, when set, runs controllers only on the replica that
	// holds the Lease it names.
	LeaderElection *LeaderElection

	// CacheSyncTimeout bounds the wait for the caches at Start, and a
	// client read's wait for a cache's first list (see package client);
	// default two minutes.
	CacheSyncTimeout time.Duration
	// ShutdownTimeout bounds how long Start waits, after its context is
	// done, for controllers to finish their reconciles; default 30 s.
	ShutdownTimeout time.Duration
}

// LeaderElection configures the coordination.k8s.io Lease that elects the
// replica that runs controllers, through client-go's leaderelection.
type LeaderElection struct {
	// Name and Namespace name the Lease. Name is required; Namespace
	// defaults to "default".
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

func (o *Options) defaults() {
	if o.CacheSyncTimeout == 0 {
		o.CacheSyncTimeout = 2 * time.Minute
	}
	if o.ShutdownTimeout == 0 {
		o.ShutdownTimeout = 30 * time.Second
	}
	if le := o.LeaderElection; le != nil {
		if le.Namespace == "" {
			le.Namespace = "default"
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
}
