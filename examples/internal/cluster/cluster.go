// Package cluster gives steady's examples a cluster to run against: the one
// in $KUBECONFIG when that is set, otherwise a local control plane (etcd +
// kube-apiserver, from package testenv) started for the run.
package cluster

import (
	"context"
	"fmt"
	"io"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/steadyctl/steady/testenv"
)

// Config returns the cluster of $KUBECONFIG, or starts a local one and a
// function that stops it. It says which on out.
func Config(ctx context.Context, out io.Writer) (cfg *rest.Config, stop func(), err error) {
	if path := os.Getenv("KUBECONFIG"); path != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, nil, fmt.Errorf("loading KUBECONFIG %s: %w", path, err)
		}
		fmt.Fprintf(out, "using the cluster in KUBECONFIG (%s)\n", cfg.Host)
		return cfg, func() {}, nil
	}
	fmt.Fprintln(out, "KUBECONFIG is not set: starting a local control plane (etcd + kube-apiserver)…")
	env, err := testenv.Start(ctx)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(out, "local control plane ready at %s\n", env.Config.Host)
	return env.Config, func() { _ = env.Stop() }, nil
}
