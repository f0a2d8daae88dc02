package manager

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/steadyctl/steady/informer"
)

var cachedObjectsDesc = prometheus.NewDesc("steady_informer_cached_objects",
	"Number of objects in a shared informer's cache.", []string{"informer"}, nil)

// cacheCollector reports the factory's cache sizes at scrape time, so that
// informers created later are covered without registration.
type cacheCollector struct{ f *informer.Factory }

func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) { ch <- cachedObjectsDesc }

func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.f.Stats() {
		ch <- prometheus.MustNewConstMetric(cachedObjectsDesc, prometheus.GaugeValue, float64(s.Objects), s.Name)
	}
}
