package manager

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// serviceAccountNamespace is the file in which Kubernetes tells a pod's
// containers their namespace, with the service account's token.
var serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// PodNamespace returns the namespace this process runs in as a pod:
// $POD_NAMESPACE (set from the downward API), else the namespace file
// Kubernetes mounts with the service account's token; "" outside a pod.
// The manager puts the leader election Lease there by default; an
// operator can put its webhook certificates' Secret there too. An
// unreadable file is an error: it is there, so the process is in a pod,
// and guessing would put objects where their RBAC is not.
func PodNamespace() (string, error) {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns, nil
	}
	b, err := os.ReadFile(serviceAccountNamespace)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("reading the pod's namespace: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
