package manager

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/steadyctl/steady/shard"
)

var (
	shardMembersDesc = prometheus.NewDesc("steady_shard_members",
		"Live members of a shard ring, as this replica sees them.", []string{"ring"}, nil)
	shardFractionDesc = prometheus.NewDesc("steady_shard_owned_fraction",
		"Fraction of a shard ring's hash space this replica owns, 0 to 1.", []string{"ring"}, nil)
	shardRangesDesc = prometheus.NewDesc("steady_shard_owned_ranges",
		"Hash ranges of a shard ring this replica owns.", []string{"ring"}, nil)
	shardCachedDesc = prometheus.NewDesc("steady_shard_cached_objects",
		"Objects in a sharded informer's cache: this replica's shard of the kind. "+
			"mode is server when the API server filters, client when the informer does.",
		[]string{"ring", "informer", "mode"}, nil)
)

// shardMetrics records the rings' handovers and reports the rings and
// sharded informers at scrape time.
type shardMetrics struct {
	m         *Manager
	handovers *prometheus.CounterVec
	took      *prometheus.HistogramVec
}

func newShardMetrics(m *Manager, reg prometheus.Registerer) (*shardMetrics, error) {
	s := &shardMetrics{m: m,
		handovers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "steady_shard_handovers_total",
			Help: "Changes of a shard ring's members this replica has drained for and acknowledged."}, []string{"ring"}),
		took: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "steady_shard_handover_seconds",
			Help:    "Time from seeing a shard ring's members change to acknowledging the new members, having drained the ranges lost.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 14), // 10ms to about 80s
		}, []string{"ring"}),
	}
	for _, c := range []prometheus.Collector{s.handovers, s.took, s} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Handover implements shard.Metrics.
func (s *shardMetrics) Handover(ring string, took time.Duration) {
	s.handovers.WithLabelValues(ring).Inc()
	s.took.WithLabelValues(ring).Observe(took.Seconds())
}

func (s *shardMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- shardMembersDesc
	ch <- shardFractionDesc
	ch <- shardRangesDesc
	ch <- shardCachedDesc
}

func (s *shardMetrics) Collect(ch chan<- prometheus.Metric) {
	s.m.mu.Lock()
	rings := make([]*shard.Ring, 0, len(s.m.rings))
	for r := range s.m.rings {
		rings = append(rings, r)
	}
	sharded := append([]shardedInformer(nil), s.m.sharded...)
	s.m.mu.Unlock()
	for _, r := range rings {
		owned := r.Owned()
		ch <- prometheus.MustNewConstMetric(shardMembersDesc, prometheus.GaugeValue, float64(len(r.Members())), r.Name())
		ch <- prometheus.MustNewConstMetric(shardFractionDesc, prometheus.GaugeValue, shard.Fraction(owned), r.Name())
		ch <- prometheus.MustNewConstMetric(shardRangesDesc, prometheus.GaugeValue, float64(len(owned)), r.Name())
	}
	if len(sharded) == 0 {
		return
	}
	objects := map[string]int{}
	for _, st := range s.m.factory.Stats() {
		objects[st.Name] = st.Objects
	}
	for _, si := range sharded {
		n, ok := objects[si.inf.Name()]
		if !ok {
			continue // released
		}
		ch <- prometheus.MustNewConstMetric(shardCachedDesc, prometheus.GaugeValue, float64(n), si.ring.Name(), si.inf.Name(), si.inf.ShardMode().String())
	}
}
