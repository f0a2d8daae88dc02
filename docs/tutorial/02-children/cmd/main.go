// Command staticsite-operator runs the StaticSite operator against the
// cluster that --kubeconfig, $KUBECONFIG, the pod's service account or
// ~/.kube/config names, the first of them present.
//
// It takes kubebuilder's main.go flags (--metrics-bind-address,
// --health-probe-bind-address, --leader-elect, ...), so the deployment
// manifests of a kubebuilder project carry over; see manager.Flags.
package main

// Regenerate the deep copies (api/.../zz_generated.deepcopy.go), the CRD
// (config/crd/bases), the RBAC role (config/rbac) and the webhook
// configurations (config/webhook) after changing the API types or the
// +kubebuilder markers: go generate ./docs/tutorial/02-children/cmd
//
//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0 object crd rbac:roleName=manager-role webhook paths=../... output:crd:artifacts:config=../config/crd/bases output:rbac:artifacts:config=../config/rbac output:webhook:artifacts:config=../config/webhook

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/docs/tutorial/02-children/internal/controller"
	"github.com/steadyctl/steady/manager"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "staticsite-operator:", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfig := cluster.RegisterFlags(flag.CommandLine)
	flags := manager.RegisterFlags(flag.CommandLine, "staticsite-operator.tutorial.steady.dev")
	flag.Parse()

	cfg, err := cluster.LoadConfig(kubeconfig)
	if err != nil {
		return fmt.Errorf("loading the cluster's config: %w", err)
	}
	opts, err := flags.Options()
	if err != nil {
		return err // names the flags
	}
	scheme, err := controller.NewScheme()
	if err != nil {
		return err
	}
	mgr, err := manager.New(cfg, append(opts, manager.WithScheme(scheme))...)
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	if err := controller.SetupWithManager(mgr); err != nil {
		return err
	}
	// Until SIGTERM or SIGINT; reconciles in progress finish first.
	return mgr.Start(manager.SignalContext(context.Background()))
}
