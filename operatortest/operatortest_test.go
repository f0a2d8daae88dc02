package operatortest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/manager"

	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The package example, run.
func TestExample(t *testing.T) { ExTestRecordsGeneration(t) }

func TestExploreExample(t *testing.T) { ExTestRecordsGenerationUnderFaults(t) }

// stopWatch is a runnable that records that the manager stopped it.
type stopWatch struct{ stopped atomic.Bool }

func (s *stopWatch) Start(ctx context.Context) error {
	<-ctx.Done()
	s.stopped.Store(true)
	return nil
}

// Each test gets a namespace of its own, named after it, and a manager
// restricted to it; both go when the test ends, the manager stopped and
// waited for.
func TestEachTestHasItsOwnNamespaceAndManager(t *testing.T) {
	testenv.Shared(t) // skips under -short
	envs, watches := make([]*operatortest.Env, 2), make([]*stopWatch, 2)
	for i := range envs {
		t.Run("sub", func(t *testing.T) {
			watches[i] = &stopWatch{}
			envs[i] = operatortest.New(t, func(mgr *manager.Manager) error { return mgr.Add(watches[i]) }, builtIn)
			if watches[i].stopped.Load() {
				t.Error("the manager stopped before the test ended")
			}
		})
	}
	a, b := envs[0].Namespace, envs[1].Namespace
	if a == b || !strings.HasPrefix(a, "testeachtesthasitsownnamespaceandmanager-") {
		t.Fatalf("namespaces %q and %q: want two, named after the test", a, b)
	}
	for i, env := range envs {
		if got := env.Manager.Namespaces(); !slices.Equal(got, []string{env.Namespace}) {
			t.Errorf("manager of %s caches namespaces %q", env.Namespace, got)
		}
		if !watches[i].stopped.Load() {
			t.Errorf("the manager of %s still runs after its test", env.Namespace)
		}
		ns, err := env.Clientset.CoreV1().Namespaces().Get(t.Context(), env.Namespace, metav1.GetOptions{})
		if err != nil || ns.DeletionTimestamp == nil {
			t.Errorf("namespace %s after its test: %v; want it being deleted", env.Namespace, err)
		}
	}
}

// recorder is a testing.TB that records how New failed the test instead of
// failing it; Fatalf ends the calling goroutine, as on a real T.
type recorder struct {
	*testing.T
	fatal  string
	errors []string
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// failing runs f with a recorder in a subtest of its own, so that the
// recorder also sees what New's clean-ups report.
func failing(t *testing.T, f func(testing.TB)) *recorder {
	var r *recorder
	t.Run("recorded", func(t *testing.T) {
		r = &recorder{T: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			f(r)
		}()
		<-done
	})
	return r
}

// New fails the test at the step that failed, and says which.
func TestNewNamesWhatFailed(t *testing.T) {
	testenv.Shared(t) // skips under -short
	for _, c := range []struct {
		name  string
		setup func(*manager.Manager) error
		opts  []operatortest.Option
		want  string
	}{
		{"setup", func(*manager.Manager) error { return errors.New("no reconciler today") }, nil,
			"operatortest: setup: no reconciler today"},
		{"manager option", nil, []operatortest.Option{operatortest.WithManagerOptions(manager.WithShutdownTimeout(-1))},
			"operatortest: manager: WithShutdownTimeout(-1ns): must be positive"},
		{"manager start", nil, []operatortest.Option{operatortest.WithManagerOptions(manager.WithHealthAddr("127.0.0.1:-1"))},
			"operatortest: the manager stopped as it started: "},
		{"CRD file", nil, []operatortest.Option{operatortest.WithCRDFiles("testdata/absent.yaml")},
			"operatortest: testenv: reading CRDs: stat testdata/absent.yaml: no such file"},
	} {
		r := failing(t, func(t testing.TB) { operatortest.New(t, c.setup, append([]operatortest.Option{builtIn}, c.opts...)...) })
		if !strings.HasPrefix(r.fatal, c.want) || len(r.errors) > 0 {
			t.Errorf("%s: failed with %q and later errors %q; want one failure saying %q", c.name, r.fatal, r.errors, c.want)
		}
	}
}

// Client fails the test for a type the manager's scheme does not know.
func TestClientOfUnknownKind(t *testing.T) {
	testenv.Shared(t) // skips under -short
	r := failing(t, func(t testing.TB) { operatortest.Client[*unknown](operatortest.New(t, nil, builtIn)) })
	if !strings.HasPrefix(r.fatal, "operatortest: ") || !strings.Contains(r.fatal, "unknown") {
		t.Errorf("Client of a type outside the scheme failed with %q, want an error naming it", r.fatal)
	}
}

// unknown is a kind no scheme has.
type unknown struct{ corev1.ConfigMap }

func (u *unknown) DeepCopyObject() k8sruntime.Object { return &unknown{*u.ConfigMap.DeepCopy()} }
