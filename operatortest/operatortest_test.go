package operatortest_test

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The package's promise in one test: create an object, see the reconcile.
func TestReconcileObserved(t *testing.T) {
	env := operatortest.New(t, runObserver)
	deployments := operatortest.Client[*appsv1.Deployment](env)
	if _, err := deployments.Create(t.Context(), newDeployment(env.Namespace, "web")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "web's status.observedGeneration to be 1", func() error {
		d, err := deployments.Live().Get(t.Context(), env.Namespace, "web")
		if err == nil && d.Status.ObservedGeneration != 1 {
			err = fmt.Errorf("observedGeneration is %d", d.Status.ObservedGeneration)
		}
		return err
	})
}
