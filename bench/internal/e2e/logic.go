package e2e

import (
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// ObservedAnnotation is what the controller writes: the run it belongs to
	// and the value of data[ValueKey] it has seen (see Desired).
	ObservedAnnotation = "bench.steady.dev/observed"
	// WrittenAnnotation is set by the load generator to the wall-clock time,
	// in Unix nanoseconds, at which it sent the update.
	WrittenAnnotation = "bench.steady.dev/written"
	// ValueKey is the data key the load generator changes.
	ValueKey = "v"
)

// Desired returns the ObservedAnnotation value a controller of run writes
// for obj, a ConfigMap or a Widget (see Data). The run identifier makes
// every child start from the same state: objects another child converged
// are unconverged for the next one.
func Desired(run string, obj metav1.Object) string {
	return run + "/" + Data(obj)[ValueKey]
}

// Converged reports whether obj carries the annotation a controller of run
// would write for it.
func Converged(run string, obj metav1.Object) bool {
	return obj.GetAnnotations()[ObservedAnnotation] == Desired(run, obj)
}

// SetObserved records want in obj's annotations. obj must be the caller's
// own copy, never an object shared with a cache.
func SetObserved(obj metav1.Object, want string) {
	a := obj.GetAnnotations()
	if a == nil {
		a = make(map[string]string, 1)
	}
	a[ObservedAnnotation] = want
	obj.SetAnnotations(a)
}

// Logic is the reconcile logic both children run, apart from the two
// framework calls around it (read from the cache, write to the API), and
// the bookkeeping behind the reported counters. It is safe for concurrent
// use by every worker.
type Logic struct {
	run   string
	since int64 // ignore written stamps older than this (earlier runs)

	reconciles atomic.Int64
	writes     atomic.Int64
	conflicts  atomic.Int64
	errors     atomic.Int64

	mu        sync.Mutex
	lastStamp map[string]int64 // key → newest written stamp seen
	latencies []time.Duration  // one per new stamp seen
}

// NewLogic returns the logic of a controller for run, started at start:
// written stamps from before start were left by earlier runs and are not
// measured.
func NewLogic(run string, start time.Time) *Logic {
	return &Logic{run: run, since: start.UnixNano(), lastStamp: make(map[string]int64)}
}

// Observe is the first step of every reconcile: obj is the object as read
// from the cache, nil (an untyped nil) if it is gone. It counts the reconcile, records the
// event→reconcile latency the first time a written stamp is seen for the
// object, and returns the annotation value to write, with write false when
// the object is already converged (or gone).
func (l *Logic) Observe(obj metav1.Object) (want string, write bool) {
	now := time.Now()
	l.reconciles.Add(1)
	if obj == nil {
		return "", false
	}
	annotations := obj.GetAnnotations()
	if s, ok := annotations[WrittenAnnotation]; ok {
		if stamp, err := strconv.ParseInt(s, 10, 64); err == nil && stamp >= l.since {
			key := obj.GetNamespace() + "/" + obj.GetName()
			l.mu.Lock()
			if l.lastStamp[key] != stamp {
				l.lastStamp[key] = stamp
				l.latencies = append(l.latencies, now.Sub(time.Unix(0, stamp)))
			}
			l.mu.Unlock()
		}
	}
	want = Desired(l.run, obj)
	return want, annotations[ObservedAnnotation] != want
}

// Wrote is the last step of a reconcile that wrote: it counts the write and
// returns what the reconciler should return. A conflict (the cache was
// behind the API server) is returned, so that the framework requeues the
// object with backoff; a deletion in the meantime is not an error.
func (l *Logic) Wrote(err error) error {
	switch {
	case err == nil:
		l.writes.Add(1)
		return nil
	case apierrors.IsNotFound(err):
		return nil
	case apierrors.IsConflict(err):
		l.conflicts.Add(1)
	default:
		l.errors.Add(1)
	}
	return err
}

// Counts is a snapshot of a Logic's counters.
type Counts struct {
	Reconciles int64 `json:"reconciles"`
	Writes     int64 `json:"writes"`
	Conflicts  int64 `json:"conflicts"`
	Errors     int64 `json:"errors"`
	// LatencySamples is the number of written stamps seen; the percentiles
	// are over them, in milliseconds.
	LatencySamples int     `json:"latency_samples"`
	LatencyP50     float64 `json:"latency_p50_ms"`
	LatencyP99     float64 `json:"latency_p99_ms"`
	LatencyMax     float64 `json:"latency_max_ms"`
}

// Counts returns the counters so far.
func (l *Logic) Counts() Counts {
	l.mu.Lock()
	lat := slices.Clone(l.latencies)
	l.mu.Unlock()
	slices.Sort(lat)
	return Counts{
		Reconciles:     l.reconciles.Load(),
		Writes:         l.writes.Load(),
		Conflicts:      l.conflicts.Load(),
		Errors:         l.errors.Load(),
		LatencySamples: len(lat),
		LatencyP50:     millis(Percentile(lat, 50)),
		LatencyP99:     millis(Percentile(lat, 99)),
		LatencyMax:     millis(Percentile(lat, 100)),
	}
}

// Percentile returns the p-th percentile (nearest rank) of sorted, or 0 if
// it is empty.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
