package operatortest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/testenv"
)

// generationRecorder is the reconciler under test: it records in each
// Deployment's status the generation it has acted on.
type generationRecorder struct {
	deployments *client.Client[*appsv1.Deployment]
}

func (r *generationRecorder) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	_, err := r.deployments.ModifyStatus(ctx, req.Namespace, req.Name, func(d *appsv1.Deployment) error {
		d.Status.ObservedGeneration = d.Generation
		return nil
	})
	return reconcile.Result{}, client.IgnoreNotFound(err)
}

// builtIn gives the test's manager the scheme main gives the operator's:
// here client-go's, of every built-in kind. A manager knows no Go types
// unless given a scheme.
var builtIn = operatortest.WithManagerOptions(manager.WithScheme(clientgoscheme.Scheme))

// setupWithManager wires the controller into a manager: what main calls,
// and what the test runs.
func setupWithManager(mgr *manager.Manager) error {
	deployments, err := client.For[*appsv1.Deployment](mgr.Factory(), "")
	if err != nil {
		return err
	}
	return builder.ControllerManagedBy(mgr).For(builder.Kind(&appsv1.Deployment{})).Complete(&generationRecorder{deployments})
}

// ExTestRecordsGeneration is a whole reconciler test. (If this were a real
// test, not an example, it would be named TestRecordsGeneration, beside
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
// which shares one control plane among the package's tests.)
func ExTestRecordsGeneration(t *testing.T) {
	env := operatortest.New(t, setupWithManager, builtIn)
	deployments := operatortest.Client[*appsv1.Deployment](env)
	if _, err := deployments.Create(t.Context(), newDeployment(env.Namespace, "web")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "web's status to record its generation", func() bool {
		d, err := deployments.Live().Get(t.Context(), env.Namespace, "web")
		return err == nil && d.Status.ObservedGeneration == d.Generation
	})
}

// newDeployment returns a Deployment of one pause container.
func newDeployment(namespace, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}

// recordsGeneration is the body of a test, shared by an ordinary test and
// an explored one: web's status records each generation of its spec.
func recordsGeneration(t testing.TB, env *operatortest.Env) {
	deployments := operatortest.Client[*appsv1.Deployment](env)
	if _, err := deployments.Create(t.Context(), newDeployment(env.Namespace, "web")); err != nil {
		t.Fatal(err)
	}
	observed := func(gen int64) func() bool {
		return func() bool {
			d, err := deployments.Live().Get(t.Context(), env.Namespace, "web")
			return err == nil && d.Generation == gen && d.Status.ObservedGeneration == gen
		}
	}
	testenv.Eventually(t, 10*time.Second, "generation 1 to be recorded", observed(1))
	if _, err := deployments.Modify(t.Context(), env.Namespace, "web", func(d *appsv1.Deployment) error {
		d.Spec.Template.Labels["version"] = "2"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "generation 2 to be recorded", observed(2))
}

// ExTestRecordsGenerationUnderFaults runs the same steps under every fault
// Explore makes, with an invariant checked after each reconcile. (If this
// were a real test, it would be named TestRecordsGenerationUnderFaults.)
func ExTestRecordsGenerationUnderFaults(t *testing.T) {
	operatortest.Explore(t, setupWithManager, recordsGeneration, builtIn,
		operatortest.WithInvariant("observedGeneration never runs ahead", func(ctx context.Context, env *operatortest.Env) error {
			d, err := operatortest.Client[*appsv1.Deployment](env).Live().Get(ctx, env.Namespace, "web")
			if err == nil && d.Status.ObservedGeneration > d.Generation {
				return fmt.Errorf("observedGeneration %d, generation %d", d.Status.ObservedGeneration, d.Generation)
			}
			return client.IgnoreNotFound(err)
		}))
}

func ExampleExplore() {
	// Explore needs the *testing.T of a test: see
	// ExTestRecordsGenerationUnderFaults, which this package's
	// TestExploreExample runs.
}

func ExampleNew() {
	// New needs the *testing.T of a test: see ExTestRecordsGeneration,
	// which this package's TestExample runs.
}
