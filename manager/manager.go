package manager

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/metrics"
	"github.com/steadyctl/steady/shard"
)

// Runnable is anything a Manager runs: Start runs until ctx is done. A
// *controller.Controller is one.
type Runnable interface {
	Start(ctx context.Context) error
}

// LeaderElectionRunnable is a Runnable that says whether it must run only on
// the elected leader. Runnables that do not implement it run only on the
// leader; a *controller.Controller does, and runs on every replica when it
// is sharded (controller.WithSharding), only on the leader otherwise.
type LeaderElectionRunnable interface {
	NeedLeaderElection() bool
}

// ErrLeaseLost is returned by Start when this replica lost its leader lease
// while running.
var ErrLeaseLost = errors.New("manager: leader lease lost")

// Manager runs shared caches, controllers, leader election, health probes
// and metrics for one operator process.
type Manager struct {
	cluster  *cluster.Cluster
	opts     *options
	log      logr.Logger
	factory  *informer.Factory
	registry *prometheus.Registry
	wq       *metrics.Workqueue
	rec      *metrics.Reconcile
	shards   *shardMetrics
	health   *checks
	elected  chan struct{}

	mu       sync.Mutex
	names    map[string]bool
	leader   []Runnable // run only while elected
	always   []Runnable // run on every replica
	rings    map[*shard.Ring]bool
	sharded  []shardedInformer // informers ShardInformer follows
	started  bool
	stopping bool
	wg       sync.WaitGroup
	addrs    [slots]string // where the endpoints listen once started
	events   eventPipes

	webhooks   webhooks
	protection protection // of the metrics and pprof endpoints
}

// New returns a Manager for the cluster at cfg. It throttles its
// requests as cfg says, or with cluster.DefaultThrottle when cfg says
// nothing (see WithThrottle); cfg itself is not changed.
func New(cfg *rest.Config, opts ...Option) (*Manager, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return nil, errors.New("manager: nil rest.Config")
	}
	cfg = rest.CopyConfig(cfg)
	switch {
	case o.throttle != nil:
		o.throttle.Apply(cfg)
	case !cluster.HasThrottle(cfg):
		// client-go would apply its 5/s, which a manager's caches, writes
		// and leader election outgrow.
		cluster.DefaultThrottle.Apply(cfg)
	}
	copts := []cluster.Option{cluster.WithScheme(o.scheme)}
	if o.http2 {
		copts = append(copts, cluster.WithHTTP2(true))
	}
	if o.cbor != nil {
		copts = append(copts, cluster.WithCBOR(*o.cbor))
	}
	if o.fastPaths != nil {
		copts = append(copts, cluster.WithFastPaths(*o.fastPaths))
	}
	if len(o.slowPaths) > 0 {
		copts = append(copts, cluster.WithoutFastPaths(o.slowPaths...))
	}
	c, err := cluster.New(cfg, copts...)
	if err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	fopts := append([]informer.FactoryOption{informer.WithLogger(o.log),
		informer.WithCacheSyncTimeout(o.cacheSyncTimeout), informer.WithKeepManagedFields(o.keepManagedFields)}, o.cache...)
	f, err := informer.NewFactory(c, fopts...)
	if err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	reg := o.registry
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	m := &Manager{cluster: c, opts: o, log: o.log, factory: f, registry: reg,
		health: newChecks(), elected: make(chan struct{}), names: map[string]bool{}, rings: map[*shard.Ring]bool{}}
	if m.wq, err = metrics.NewWorkqueue(reg); err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	if m.rec, err = metrics.NewReconcile(reg); err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	if err := reg.Register(&cacheCollector{f: f, now: time.Now}); err != nil {
		return nil, fmt.Errorf("manager: registering cache metrics: %w", err)
	}
	if m.shards, err = newShardMetrics(m, reg); err != nil {
		return nil, fmt.Errorf("manager: registering shard metrics: %w", err)
	}
	m.health.addReady("informers", m.cachesSynced)
	if err := m.newWebhooks(); err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	return m, nil
}

// Cluster returns the connection to the API server: the rest.Config,
// scheme, REST mapper and REST clients the manager's caches and clients
// share.
func (m *Manager) Cluster() *cluster.Cluster { return m.cluster }

// Factory returns the shared informer factory: every informer and client
// taken from it shares one watch and cache per kind.
func (m *Manager) Factory() *informer.Factory { return m.factory }

// Namespaces returns the namespaces the caches of namespaced kinds are
// restricted to, sorted, or nil for all; see WithNamespaces.
func (m *Manager) Namespaces() []string { return m.factory.Namespaces() }

// Logger returns the manager's logger.
func (m *Manager) Logger() logr.Logger { return m.log }

// Registry returns the Prometheus registry served on /metrics; register an
// operator's own metrics with it.
func (m *Manager) Registry() *prometheus.Registry { return m.registry }

// Elected is closed once this replica may run leader-only work: when it
// wins the election, or at Start without leader election.
func (m *Manager) Elected() <-chan struct{} { return m.elected }

// ControllerOptions reserves a controller name and returns the options that
// wire a controller of that name into the manager: its logger, metrics and
// cache sync timeout. Pass them to controller.New before your own. A name
// can be reserved once.
func (m *Manager) ControllerOptions(name string) ([]controller.Option, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if name == "" {
		return nil, errors.New("manager: a controller needs a name")
	}
	if m.names[name] {
		return nil, fmt.Errorf("manager: a controller named %q already exists; names label metrics and logs, so they must be unique (builder: use Named)", name)
	}
	m.names[name] = true
	return []controller.Option{
		controller.WithLogger(m.log),
		controller.WithMetricsProvider(m.wq),
		controller.WithMetrics(m.rec),
		controller.WithCacheSyncTimeout(m.opts.cacheSyncTimeout),
	}, nil
}

// Add registers r to be run by Start: only on the leader unless r is a
// LeaderElectionRunnable that says otherwise. Add after Start is an error.
//
// A *shard.Ring runs on every replica, and is run once however often it
// is added (ShardInformer and the builder's Sharded add theirs); its
// members, owned ranges and handovers are reported in the manager's
// metrics (steady_shard_*, see the package documentation). A sharded
// controller (controller.WithSharding) runs on every replica too.
func (m *Manager) Add(r Runnable) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return fmt.Errorf("manager: cannot add %T after Start", r)
	}
	if ring, ok := r.(*shard.Ring); ok {
		if m.rings[ring] {
			return nil
		}
		m.rings[ring] = true
		ring.SetMetrics(m.shards)
	}
	if le, ok := r.(LeaderElectionRunnable); ok && !le.NeedLeaderElection() {
		m.always = append(m.always, r)
	} else {
		m.leader = append(m.leader, r)
	}
	return nil
}

// MetricsAddr returns the address /metrics is served on, once Start has
// opened it ("" before, or when not served).
func (m *Manager) MetricsAddr() string { return m.addr(slotMetrics) }

// HealthAddr returns the address /healthz and /readyz are served on, once
// Start has opened it.
func (m *Manager) HealthAddr() string { return m.addr(slotHealth) }

func (m *Manager) addr(i int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addrs[i]
}

// cachesSynced is the built-in readiness check.
func (m *Manager) cachesSynced() error {
	m.mu.Lock()
	started := m.started
	m.mu.Unlock()
	if !started {
		return errors.New("not started")
	}
	var pending []string
	for _, s := range m.factory.Stats() {
		switch {
		case s.Synced:
		case s.Err != nil:
			pending = append(pending, fmt.Sprintf("%s (%v)", s.Name, s.Err))
		default:
			pending = append(pending, s.Name)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("caches not synced: %v", pending)
	}
	return nil
}
