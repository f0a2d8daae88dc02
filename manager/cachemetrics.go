package manager

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/steadyctl/steady/informer"
)

var cachedObjectsDesc = prometheus.NewDesc("steady_informer_cached_objects",
	"Number of objects in a shared informer's cache.", []string{"informer"}, nil)

var (
	cacheLagDesc = prometheus.NewDesc("steady_informer_cache_lag_seconds",
		"While a shared informer has changes received and not yet in its cache, the time since its cache last moved forward; "+
			"0 when nothing is pending. A value that grows means the cache is falling behind.",
		[]string{"informer"}, nil)
	cachePendingDesc = prometheus.NewDesc("steady_informer_pending_changes",
		"Objects with changes a shared informer has received and not yet applied to its cache.",
		[]string{"informer"}, nil)
	cacheReceivedDesc = prometheus.NewDesc("steady_informer_last_received_seconds",
		"Time since a shared informer last received a list, event or bookmark from the API server; "+
			"a quiet watch still receives a bookmark about once a minute.",
		[]string{"informer"}, nil)
)

// cacheCollector reports the factory's cache sizes at scrape time, so that
// informers created later are covered without registration.
type cacheCollector struct {
	f   *informer.Factory
	now func() time.Time // the factory's clock
}

func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- cachedObjectsDesc
	ch <- cacheLagDesc
	ch <- cachePendingDesc
	ch <- cacheReceivedDesc
}

func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.f.Stats() {
		ch <- prometheus.MustNewConstMetric(cachedObjectsDesc, prometheus.GaugeValue, float64(s.Objects), s.Name)
		p := s.Progress
		if p.Received.IsZero() {
			continue // not started
		}
		lag := 0.0
		if p.Pending > 0 && !p.Advanced.IsZero() {
			lag = max(0, c.now().Sub(p.Advanced).Seconds())
		}
		ch <- prometheus.MustNewConstMetric(cacheLagDesc, prometheus.GaugeValue, lag, s.Name)
		ch <- prometheus.MustNewConstMetric(cachePendingDesc, prometheus.GaugeValue, float64(p.Pending), s.Name)
		ch <- prometheus.MustNewConstMetric(cacheReceivedDesc, prometheus.GaugeValue, c.now().Sub(p.Received).Seconds(), s.Name)
	}
}
