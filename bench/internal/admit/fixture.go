package admit

import (
	_ "embed"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// deploymentJSON is a Deployment as kube-apiserver v1.36.3 (testenv)
// served it: applied server-side by "kubectl", then given its revision
// annotation and status by "kube-controller-manager" (two Update
// entries in managedFields, one of them for the status subresource).
// Compact, it is about 5.3 KiB.
//
//go:embed deployment.json
var deploymentJSON []byte

// Deployment returns a fresh copy of the fixture.
func Deployment() (*appsv1.Deployment, error) {
	var d appsv1.Deployment
	if err := json.Unmarshal(deploymentJSON, &d); err != nil {
		return nil, fmt.Errorf("admit: the Deployment fixture: %w", err)
	}
	return &d, nil
}
