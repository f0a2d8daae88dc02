package informer

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reflector"
)

// failingLW fails every List with err until ok is set, then serves an empty
// list; its watches stay open.
type failingLW struct {
	err   error
	ok    atomic.Bool
	lists atomic.Int32
}

func (l *failingLW) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	l.lists.Add(1)
	if !l.ok.Load() {
		return nil, l.err
	}
	return list("7"), nil
}

func (l *failingLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return watch.NewFakeWithChanSize(1, false), nil
}

var secrets = schema.GroupResource{Resource: "secrets"}

func fastRetries() Option {
	return WithReflectorOptions(reflector.WithBackoff(time.Millisecond, 5*time.Millisecond, time.Second))
}

func TestWaitForSyncBeforeRunSaysNotRunning(t *testing.T) {
	inf := mustNew[*corev1.ConfigMap](t, newScriptLW(list("1")), WithName("configmaps"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := inf.WaitForSync(ctx)
	if !errors.Is(err, ErrNotSynced) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "not running") || !strings.Contains(err.Error(), "configmaps") {
		t.Fatalf("WaitForSync before Run: %v", err)
	}
}

func TestWaitForSyncReturnsOnceListed(t *testing.T) {
	inf := mustNew[*corev1.ConfigMap](t, newScriptLW(list("3", cmv("a", "2"))), WithName("configmaps"))
	defer runInformer(t, inf)()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := inf.Cache().Get("ns", "a"); !ok {
		t.Fatal("WaitForSync returned before the list was cached")
	}
	if got := inf.LastSyncResourceVersion(); got != "3" {
		t.Fatalf("LastSyncResourceVersion = %q after a list at 3", got)
	}
}

// A list the API server refuses, and will keep refusing, ends the wait at
// once with the reason; it is never a NotFound a reader could take for a
// missing object, even when the refusal itself is a 404 (a kind whose CRD
// is gone).
func TestWaitForSyncFailsFastOnPermanentErrors(t *testing.T) {
	for name, listErr := range map[string]error{
		"forbidden":       apierrors.NewForbidden(secrets, "", errors.New(`User "system:serviceaccount:x:op" cannot list resource "secrets"`)),
		"unknown kind":    apierrors.NewNotFound(secrets, ""),
		"unauthenticated": apierrors.NewUnauthorized("token expired"),
	} {
		t.Run(name, func(t *testing.T) {
			lw := &failingLW{err: listErr}
			inf := mustNew[*corev1.ConfigMap](t, lw, WithName("secrets/x"), fastRetries())
			var seen atomic.Int32
			if err := inf.SetWatchErrorHandler(func(error) { seen.Add(1) }); err != nil {
				t.Fatal(err)
			}
			defer runInformer(t, inf)()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := inf.WaitForSync(ctx)
			switch {
			case err == nil:
				t.Fatal("WaitForSync succeeded without a list")
			case ctx.Err() != nil:
				t.Fatalf("WaitForSync waited for the deadline: %v", err)
			case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
				t.Fatalf("WaitForSync's error passes for an API answer: %v", err)
			case !errors.Is(err, ErrNotSynced) || !strings.Contains(err.Error(), "secrets/x") || !strings.Contains(err.Error(), listErr.Error()):
				t.Fatalf("WaitForSync: %v, want ErrNotSynced naming the informer and %q", err, listErr)
			}
			if inf.SyncError() == nil {
				t.Fatal("SyncError is nil after a failed list")
			}
			testkit.Eventually(t, 10*time.Second, "the user's error handler", func() bool { return seen.Load() > 0 })
			// The informer keeps trying, and a later success clears the error.
			lw.ok.Store(true)
			if err := inf.WaitForSync(context.Background()); err != nil && !strings.Contains(err.Error(), "cannot list") {
				t.Fatal(err)
			}
			testkit.Eventually(t, 10*time.Second, "a sync once the list succeeds", inf.HasSynced)
			if err := inf.SyncError(); err != nil {
				t.Fatalf("SyncError after the sync: %v", err)
			}
		})
	}
}

// A transient failure (a server restarting) is waited out.
func TestWaitForSyncWaitsOutTransientErrors(t *testing.T) {
	lw := &failingLW{err: apierrors.NewServiceUnavailable("restarting")}
	inf := mustNew[*corev1.ConfigMap](t, lw, WithName("configmaps"), fastRetries())
	defer runInformer(t, inf)()
	testkit.Eventually(t, 10*time.Second, "a few failed lists", func() bool { return lw.lists.Load() >= 3 })
	done := make(chan error, 1)
	go func() { done <- inf.WaitForSync(context.Background()) }()
	select {
	case err := <-done:
		t.Fatalf("WaitForSync gave up on a transient error: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	lw.ok.Store(true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// When the context ends first, the error says so and carries the last
// failure.
func TestWaitForSyncDeadlineNamesLastError(t *testing.T) {
	lw := &failingLW{err: apierrors.NewServiceUnavailable("restarting")}
	inf := mustNew[*corev1.ConfigMap](t, lw, WithName("configmaps"), fastRetries())
	defer runInformer(t, inf)()
	testkit.Eventually(t, 10*time.Second, "a failed list", func() bool { return inf.SyncError() != nil })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := inf.WaitForSync(ctx)
	if !errors.Is(err, ErrNotSynced) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "restarting") {
		t.Fatalf("WaitForSync at the deadline: %v", err)
	}
}
