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

// podNamespace returns the namespace this process runs in as a pod:
// $POD_NAMESPACE (set from the downward API), else the service account's
// namespace file; "" outside a pod. An unreadable file is an error: it is
// there, so the process is in a pod, and guessing would put the Lease
// where its RBAC is not.
func podNamespace() (string, error) {
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
