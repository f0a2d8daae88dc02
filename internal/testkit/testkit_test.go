package testkit

import (
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// The control plane is shared: every test of a binary gets the same one,
// and Namespace gives each test a namespace of its own on it.
func TestEnvIsSharedAndNamespacesAreFresh(t *testing.T) {
	env := Env(t)
	if again := Env(t); again != env {
		t.Fatal("a second Env call started another control plane")
	}
	if Clientset(t) != env.Clientset {
		t.Fatal("Clientset is not the shared control plane's")
	}
	a, b := Namespace(t, "kit-"), Namespace(t, "kit-")
	if a == b || !strings.HasPrefix(a, "kit-") {
		t.Fatalf("namespaces %q and %q: want two distinct ones named kit-…", a, b)
	}
}
