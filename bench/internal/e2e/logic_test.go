package e2e

import (
	"errors"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	for p, want := range map[float64]time.Duration{50: 50, 99: 99, 100: 100, 0: 1} {
		if got := Percentile(d, p); got != want {
			t.Errorf("Percentile(1..100, %v) = %v, want %v", p, got, want)
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("Percentile(nil) = %v, want 0", got)
	}
}

func TestLogic(t *testing.T) {
	start := time.Now()
	l := NewLogic("r1", start)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", Annotations: map[string]string{
			WrittenAnnotation: strconv.FormatInt(start.Add(time.Millisecond).UnixNano(), 10),
		}},
		Data: map[string]string{ValueKey: "7"},
	}
	want, write := l.Observe(cm)
	if want != "r1/7" || !write {
		t.Fatalf("Observe = %q, %v; want r1/7, true", want, write)
	}
	SetObserved(cm, want)
	if _, write := l.Observe(cm); write || !Converged("r1", cm) {
		t.Fatalf("converged object: write = %v, Converged = %v", write, Converged("r1", cm))
	}
	if _, write := l.Observe(nil); write {
		t.Fatal("a missing object needs no write")
	}
	gr := schema.GroupResource{Resource: "configmaps"}
	if err := l.Wrote(apierrors.NewConflict(gr, "a", errors.New("stale"))); err == nil {
		t.Error("a conflict must be returned, to requeue")
	}
	if err := l.Wrote(apierrors.NewNotFound(gr, "a")); err != nil {
		t.Errorf("Wrote(NotFound) = %v, want nil", err)
	}
	c := l.Counts()
	if c.Reconciles != 3 || c.Conflicts != 1 || c.LatencySamples != 1 {
		t.Errorf("counts = %+v; want 3 reconciles, 1 conflict, 1 latency sample (one stamp seen twice)", c)
	}
}
