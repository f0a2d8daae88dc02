package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestBuildTags(t *testing.T) {
	for _, tc := range []struct {
		scheme  string
		managed bool
		want    string
	}{
		{"used", false, ""},
		{"client-go", false, "e2e_clientgoscheme"},
		{"used", true, "e2e_manager"},
		{"client-go", true, "e2e_clientgoscheme,e2e_manager"},
	} {
		if got := buildTags(tc.scheme, tc.managed); got != tc.want {
			t.Errorf("buildTags(%q, %v) = %q, want %q", tc.scheme, tc.managed, got, tc.want)
		}
	}
}

// The default steady child must not link steady's manager or client-go's
// typed clientset and scheme: their init would put their pages into every
// run's RSS, which is what -steady manager and -scheme client-go measure.
func TestSteadyChildLinks(t *testing.T) {
	deps := func(tags string) []string {
		t.Helper()
		out, err := exec.Command("go", "list", "-tags", tags, "-deps", "./steady").Output()
		if err != nil {
			t.Fatalf("go list -tags %q -deps: %v", tags, err)
		}
		return strings.Fields(string(out))
	}
	unwanted := []string{"github.com/steadyctl/steady/manager", "k8s.io/client-go/kubernetes", "k8s.io/client-go/kubernetes/scheme"}
	plain := deps("")
	for _, p := range unwanted {
		if slices.Contains(plain, p) {
			t.Errorf("the default steady child links %s", p)
		}
	}
	if !slices.Contains(deps("e2e_manager"), "github.com/steadyctl/steady/manager") {
		t.Error("the steady child built with e2e_manager does not link steady's manager")
	}
}
