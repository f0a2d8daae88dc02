package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/testenv"
)

// TestMain checks that the example leaves no goroutine behind; the tests
// share one local control plane, started by the first that asks for it.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestFoo runs the example's story against a local control plane, twice: the
// second run finds the CRD installed, as a run against a long-lived
// KUBECONFIG cluster would. (The first run finds it too if another test of
// the binary installed it first.)
func TestFoo(t *testing.T) {
	ctx, env := context.Background(), testenv.Shared(t)
	firstCRD := "installed CRD"
	if _, err := dynamic.NewForConfigOrDie(env.Config).Resource(crdGVR).Get(ctx, crdName, metav1.GetOptions{}); err == nil {
		firstCRD = "is already installed: reusing it"
	}
	for i, wantCRD := range []string{firstCRD, "is already installed: reusing it"} {
		var out bytes.Buffer
		s, err := run(ctx, env.Config, &out)
		if err != nil {
			t.Fatalf("run %d: %v\noutput:\n%s", i+1, err, out.String())
		}
		checkSummary(t, s, out.String())
		for _, want := range []string{
			wantCRD,
			"created deployment example-foo-web (replicas: 1) controlled by foo example-foo",
			"has finalizer samplecontroller.steady.dev/cleanup",
			"the finalizer goes: the API server can delete the foo now",
			"playing the deployment controller, setting availableReplicas=3",
			"scaled deployment example-foo-web from 1 to 3 replicas",
			"status availableReplicas 1→3",
			"clean-up: deleted deployment example-foo-web",
			"clean-up: left deployment not-yours alone",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("run %d: output does not say %q:\n%s", i+1, want, out.String())
			}
		}
	}
}

func checkSummary(t *testing.T, s summary, out string) {
	t.Helper()
	if s.DeploymentsCreated != 1 || !s.ControllerRef {
		t.Errorf("deployments created: %d, controller owner reference to the foo: %t; want 1, true", s.DeploymentsCreated, s.ControllerRef)
	}
	if s.DeploymentsScaled != 1 || s.ScaledTo != 3 {
		t.Errorf("deployments scaled: %d, to %d replicas; want 1, to 3", s.DeploymentsScaled, s.ScaledTo)
	}
	if !slices.Equal(s.AvailableFollowed, []int32{1, 3}) {
		t.Errorf("foo status.availableReplicas followed %v, want [1 3]", s.AvailableFollowed)
	}
	if s.Refused < 1 || !strings.Contains(s.WarningEvent, "not-yours already exists and is not controlled by foo squatter") {
		t.Errorf("refused: %d, warning event %q; want a refusal of not-yours", s.Refused, s.WarningEvent)
	}
	// One clean-up per deleted Foo; only example-foo's deletes a Deployment.
	if s.Cleanups != 2 || s.DeploymentsDeleted != 1 || !s.FoosGone || !s.ForeignKept {
		t.Errorf("clean-ups: %d deleting %d deployments, foos gone %t, foreign deployment kept %t; want 2, 1, true, true",
			s.Cleanups, s.DeploymentsDeleted, s.FoosGone, s.ForeignKept)
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}
