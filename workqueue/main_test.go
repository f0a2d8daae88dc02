package workqueue

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// logLines collects what a queue logs, V(1) included.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lines = append(l.lines, prefix+" "+args)
	}, funcr.Options{Verbosity: 1})
}

// find returns the first line containing every one of parts, or "".
func (l *logLines) find(parts ...string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
next:
	for _, line := range l.lines {
		for _, p := range parts {
			if !strings.Contains(line, p) {
				continue next
			}
		}
		return line
	}
	return ""
}

var testEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newFakeClock() *clocktesting.FakeClock { return clocktesting.NewFakeClock(testEpoch) }

// getAsync calls q.Get in a goroutine and delivers its result.
type getResult[T any] struct {
	item     T
	shutdown bool
}

func getAsync[T comparable](q *Queue[T]) <-chan getResult[T] {
	ch := make(chan getResult[T], 1)
	go func() {
		item, shutdown := q.Get()
		ch <- getResult[T]{item, shutdown}
	}()
	return ch
}

// mustGet returns the next item of any of the queues, failing the test
// if the queue is shut down and empty.
func mustGet[T comparable](t *testing.T, q interface{ Get() (T, bool) }) T {
	t.Helper()
	item, shutdown := q.Get()
	if shutdown {
		t.Fatal("Get reported shutdown")
	}
	return item
}

// promote makes due delayed items ready now, as the timer goroutine
// would, so a test can assert that nothing is due without waiting.
func (q *Queue[T]) promote() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.promoteDue(q.now())
}

// sleepers reports how many workers are asleep in Get.
func (q *Queue[T]) sleepers() int { return int(q.asleep.Load()) }
