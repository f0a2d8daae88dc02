package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/steadyctl/steady/testenv"
)

// TestMain checks that the example leaves no goroutine behind; the tests
// share one local control plane, started by the first that asks for it.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestFoo runs the example's story against a local control plane, twice:
// first as `go run ./examples/foo -local` does, with the webhooks; then as
// a run against a long-lived KUBECONFIG cluster does, without them, finding
// the CRD installed (the first run finds it too if another test of the
// binary installed it first).
func TestFoo(t *testing.T) {
	ctx, env := context.Background(), testenv.Shared(t)
	dyn := dynamic.NewForConfigOrDie(env.Config)
	firstCRD := "installed CRD"
	if _, err := dyn.Resource(crdGVR).Get(ctx, crdName, metav1.GetOptions{}); err == nil {
		firstCRD = "is already installed: reusing it"
	}
	for i, c := range []struct {
		webhooks bool
		wantCRD  string
	}{{true, firstCRD}, {false, "is already installed: reusing it"}} {
		var out bytes.Buffer
		s, err := run(ctx, env.Config, c.webhooks, &out)
		if err != nil {
			t.Fatalf("run %d: %v\noutput:\n%s", i+1, err, out.String())
		}
		checkSummary(t, s, c.webhooks, out.String())
		want := []string{
			c.wantCRD,
			"created deployment example-foo-web (replicas: 1) controlled by foo example-foo",
			"has finalizer samplecontroller.steady.dev/cleanup",
			"the finalizer goes: the API server can delete the foo now",
			"playing the deployment controller, setting availableReplicas=3",
			"scaled deployment example-foo-web from 1 to 3 replicas",
			"status availableReplicas 1→3",
			"clean-up: deleted deployment example-foo-web",
			"clean-up: left deployment not-yours alone",
		}
		if c.webhooks {
			want = append(want, "CA bundle injected", "operator ready: /readyz passes",
				"created deployment legacy-web (replicas: 2) controlled by foo legacy", "clean-up: deleted deployment legacy-web")
		} else {
			want = append(want, "webhooks: off", "the webhooks: skipped",
				"stored as written, {name: example-foo-web, replicas: unset, image: unset}")
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("run %d: output does not say %q:\n%s", i+1, w, out.String())
			}
		}
		checkUnregistered(t, dyn)
	}
}

func checkSummary(t *testing.T, s summary, webhooks bool, out string) {
	t.Helper()
	// With the webhooks the story adds foo legacy, written as v1alpha1,
	// whose Deployment the operator creates and deletes like any other.
	created, cleanups, deleted := int32(1), int32(2), int32(1)
	if webhooks {
		created, cleanups, deleted = 2, 3, 2
	}
	if s.DeploymentsCreated != created || !s.ControllerRef {
		t.Errorf("deployments created: %d, controller owner reference to the foo: %t; want %d, true", s.DeploymentsCreated, s.ControllerRef, created)
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
	// One clean-up per deleted Foo; squatter's deletes no Deployment.
	if s.Cleanups != cleanups || s.DeploymentsDeleted != deleted || !s.FoosGone || !s.ForeignKept {
		t.Errorf("clean-ups: %d deleting %d deployments, foos gone %t, foreign deployment kept %t; want %d, %d, true, true",
			s.Cleanups, s.DeploymentsDeleted, s.FoosGone, s.ForeignKept, cleanups, deleted)
	}
	if webhooks {
		checkWebhooks(t, s)
	} else if s.Webhooks != "" || s.Stored != "" || s.Invalid != "" || s.ReadAsV1beta1 != "" {
		t.Errorf("webhooks off, yet the summary says %+v", s)
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// checkWebhooks checks what the API server did with the webhooks: it
// stored the defaults, passed on the validator's refusals and warning, and
// converted between the versions both ways.
func checkWebhooks(t *testing.T, s summary) {
	t.Helper()
	const denied = `admission webhook "validate.foos.samplecontroller.steady.dev" denied the request: `
	for _, c := range []struct{ what, got, want string }{
		{"webhook server", s.Webhooks, "https://127.0.0.1:"},
		{"defaulted foo", s.Stored, "{name: example-foo-web, replicas: 1, image: registry.k8s.io/pause:3.10}"},
		{"invalid foo's refusal", s.Invalid, denied + `Foo.samplecontroller.steady.dev "bad" is invalid: [spec.deployment.name: Invalid value: "Web_Server": a lowercase RFC 1123 label`},
		{"invalid foo's refusal", s.Invalid, "spec.deployment.replicas: Invalid value: 11: must be between 0 and 10]"},
		{"rename's refusal", s.Immutable, denied + `Foo.samplecontroller.steady.dev "example-foo" is invalid: spec.deployment.name: Invalid value: "example-foo-api": field is immutable`},
		{"validator's warning", s.ImageWarning, "spec.deployment.image: k8s.gcr.io is deprecated and frozen; use registry.k8s.io/pause:3.9"},
		{"API server's warning", s.Deprecation, "samplecontroller.steady.dev/v1alpha1 Foo is deprecated; use samplecontroller.steady.dev/v1beta1"},
		// The defaulter saw the v1alpha1 create as v1beta1; its image
		// came back through v1alpha1 in the annotation, and out of it
		// into storage.
		{"v1alpha1 foo read as v1beta1", s.ReadAsV1beta1, "{name: legacy-web, replicas: 2, image: registry.k8s.io/pause:3.10}"},
		{"v1beta1 foo read as v1alpha1", s.ReadAsV1alpha1,
			"deploymentName example-foo-web, replicas 3, annotation samplecontroller.steady.dev/v1beta1-image=registry.k8s.io/pause:3.10"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s: %q, want it to hold %q", c.what, c.got, c.want)
		}
	}
}

// checkUnregistered checks that a run leaves no webhook behind: no
// configuration, and a CRD that serves v1beta1 alone, without conversion,
// as the next run or test expects to find it.
func checkUnregistered(t *testing.T, dyn dynamic.Interface) {
	t.Helper()
	ctx := context.Background()
	for _, res := range []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"} {
		gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: res}
		list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list.Items {
			if strings.HasSuffix(c.GetName(), "-foo-webhooks") {
				t.Errorf("%s %s left behind", res, c.GetName())
			}
		}
	}
	crd, err := dyn.Resource(crdGVR).Get(ctx, crdName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	strategy, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy")
	if served := servedVersions(crd); strategy != "None" || !slices.Equal(served, []string{"v1beta1"}) {
		t.Errorf("CRD left with conversion %s, serving %v; want None, [v1beta1]", strategy, served)
	}
}
