// Command testenv starts a local Kubernetes control plane (etcd and
// kube-apiserver, built from the Go module proxy on first use) and prints how
// to reach it.
//
// Usage:
//
//	go run ./cmd/testenv            # start, print version and kubeconfig, stop
//	go run ./cmd/testenv -hold      # keep it running until Ctrl-C
//	go run ./cmd/testenv -build     # only build (or locate) the binaries
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/steadyctl/steady/testenv"
)

func main() {
	hold := flag.Bool("hold", false, "keep the control plane running until interrupted")
	buildOnly := flag.Bool("build", false, "only build or locate etcd and kube-apiserver, print their paths and exit")
	flag.Parse()
	if err := run(*hold, *buildOnly); err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		os.Exit(1)
	}
}

func run(hold, buildOnly bool) error {
	if buildOnly {
		etcd, apiserver, err := testenv.EnsureBinaries()
		if err != nil {
			return err
		}
		fmt.Printf("etcd:           %s\nkube-apiserver: %s\n", etcd, apiserver)
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	env, err := testenv.Start(ctx)
	if err != nil {
		return err
	}
	defer env.Stop()

	client, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		return err
	}
	version, err := client.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("asking the API server for its version: %w", err)
	}
	namespaces, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing namespaces: %w", err)
	}
	fmt.Printf("kube-apiserver %s is ready at %s (etcd at %s)\n", version.GitVersion, env.Config.Host, env.EtcdURL)
	fmt.Printf("namespaces: %d\n", len(namespaces.Items))
	fmt.Printf("kubeconfig: %s\n", env.KubeconfigPath)
	if hold {
		fmt.Printf("try: kubectl --kubeconfig %s get namespaces\nPress Ctrl-C to stop.\n", env.KubeconfigPath)
		<-ctx.Done()
	}
	fmt.Println("stopping the control plane")
	return nil
}
