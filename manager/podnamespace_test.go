package manager

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Lease's namespace defaults to the pod's: $POD_NAMESPACE, else the
// service account's namespace file; outside a pod an empty namespace is
// an error of New naming the option, not a Lease in "default" that the
// operator's RBAC does not grant. A namespace given is kept.
func TestLeaderElectionNamespaceIsThePods(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "namespace")
	old := serviceAccountNamespace
	serviceAccountNamespace = file
	t.Cleanup(func() { serviceAccountNamespace = old })
	leaseIn := func(le LeaderElection) (string, error) {
		o, err := newOptions([]Option{WithLeaderElection(le)})
		if err != nil {
			return "", err
		}
		return o.leaderElection.Namespace, nil
	}

	t.Setenv("POD_NAMESPACE", "")
	if _, err := leaseIn(LeaderElection{Name: "lock"}); err == nil ||
		!strings.Contains(err.Error(), "WithLeaderElection") || !strings.Contains(err.Error(), "not in a pod") {
		t.Fatalf("outside a pod: %v, want an error naming WithLeaderElection", err)
	}
	if err := os.WriteFile(file, []byte("operators\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ns, err := leaseIn(LeaderElection{Name: "lock"}); err != nil || ns != "operators" {
		t.Fatalf("with the service account's file: %q, %v; want operators", ns, err)
	}
	t.Setenv("POD_NAMESPACE", "from-env")
	if ns, err := leaseIn(LeaderElection{Name: "lock"}); err != nil || ns != "from-env" {
		t.Fatalf("with $POD_NAMESPACE: %q, %v; want from-env", ns, err)
	}
	if ns, err := leaseIn(LeaderElection{Name: "lock", Namespace: "given"}); err != nil || ns != "given" {
		t.Fatalf("a namespace given: %q, %v; want given", ns, err)
	}
	t.Setenv("POD_NAMESPACE", "")
	if err := os.Chmod(file, 0); err == nil && os.Getuid() != 0 {
		if _, err := leaseIn(LeaderElection{Name: "lock"}); err == nil || !strings.Contains(err.Error(), "reading the pod's namespace") {
			t.Fatalf("an unreadable file: %v, want an error", err)
		}
	}
}

// PodNamespace, as an operator calls it: "" outside a pod, the service
// account's file, $POD_NAMESPACE over it, and an error for a file that is
// there but cannot be read (here a directory, which root cannot read
// either).
func TestPodNamespace(t *testing.T) {
	dir := t.TempDir()
	old := serviceAccountNamespace
	serviceAccountNamespace = filepath.Join(dir, "namespace")
	t.Cleanup(func() { serviceAccountNamespace = old })
	t.Setenv("POD_NAMESPACE", "")
	if ns, err := PodNamespace(); ns != "" || err != nil {
		t.Fatalf("outside a pod: %q, %v", ns, err)
	}
	if err := os.WriteFile(serviceAccountNamespace, []byte("operators\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ns, err := PodNamespace(); ns != "operators" || err != nil {
		t.Fatalf("with the service account's file: %q, %v", ns, err)
	}
	t.Setenv("POD_NAMESPACE", "from-env")
	if ns, err := PodNamespace(); ns != "from-env" || err != nil {
		t.Fatalf("with $POD_NAMESPACE: %q, %v", ns, err)
	}
	t.Setenv("POD_NAMESPACE", "")
	serviceAccountNamespace = dir
	if ns, err := PodNamespace(); err == nil || !strings.Contains(err.Error(), "reading the pod's namespace") {
		t.Fatalf("an unreadable file: %q, %v; want an error", ns, err)
	}
}
