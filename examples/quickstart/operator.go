package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/examples/internal/cluster"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reflector"
)

// summary is what the example observed.
type summary struct {
	WithPredicate    int32 // reconciles of "web", filtered by GenerationChanged
	SpecVersions     int64 // generations "web" went through
	WithoutPredicate int32 // reconciles of "web-loop" within LoopWindow
	LoopWindow       time.Duration
}

// reconciler writes what it saw into the Deployment's status: the
// generation it acted on and how many times it ran.
type reconciler struct {
	client *kubernetes.Clientset
	ns     string
	out    io.Writer
	count  atomic.Int32
	quiet  bool // do not print every reconcile (the looping run would flood)
}

func (r *reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	n := r.count.Add(1)
	d, err := controller.UpdateStatus(ctx, r.client.AppsV1().Deployments(r.ns), req.Name, func(d *appsv1.Deployment) error {
		d.Status.ObservedGeneration = d.Generation
		d.Status.Conditions = []appsv1.DeploymentCondition{{
			Type: "Reconciled", Status: corev1.ConditionTrue, Reason: "Quickstart",
			Message: fmt.Sprintf("reconcile #%d", n),
		}}
		return nil
	})
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil // deleted meanwhile: nothing to do
	}
	if err != nil {
		return controller.Result{}, err
	}
	if !r.quiet {
		fmt.Fprintf(r.out, "  reconcile #%d of %s: generation %d, status written\n", n, req.Name, d.Generation)
	}
	return controller.Result{}, nil
}

// run plays the example in a fresh namespace of the cluster at cfg.
func run(ctx context.Context, cfg *rest.Config, out io.Writer, loopWindow time.Duration) (summary, error) {
	out = cluster.LockedWriter(out) // reconcilers print from their own goroutines
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return summary{}, err
	}
	nsObj, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "steady-quickstart-"}}, metav1.CreateOptions{})
	if err != nil {
		return summary{}, fmt.Errorf("creating a namespace: %w", err)
	}
	ns := nsObj.Name
	defer client.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), ns, metav1.DeleteOptions{})
	fmt.Fprintf(out, "working in namespace %s\n", ns)

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()

	// One informer for Deployments, shared by both controllers.
	deployments := informer.New[*appsv1.Deployment](reflector.FromClient(client.AppsV1().Deployments(ns)), informer.WithName("deployments"))
	onlyNamed := func(name string) predicate.Predicate[*appsv1.Deployment] {
		return predicate.NewFilter(func(d *appsv1.Deployment) bool { return d.Name == name })
	}
	good := &reconciler{client: client, ns: ns, out: out}
	loop := &reconciler{client: client, ns: ns, out: out, quiet: true}
	for _, c := range []struct {
		name  string
		r     *reconciler
		preds []predicate.Predicate[*appsv1.Deployment]
	}{
		{"web", good, []predicate.Predicate[*appsv1.Deployment]{onlyNamed("web"), predicate.GenerationChanged[*appsv1.Deployment]()}},
		{"web-loop", loop, []predicate.Predicate[*appsv1.Deployment]{onlyNamed("web-loop")}},
	} {
		ctrl, err := controller.New(c.name, c.r)
		if err != nil {
			return summary{}, err
		}
		if err := ctrl.Watch(controller.Informer(deployments, handler.EnqueueObject[*appsv1.Deployment](), c.preds...)); err != nil {
			return summary{}, err
		}
		wg.Go(func() { _ = ctrl.Start(ctx) })
	}
	wg.Go(func() { _ = deployments.Run(ctx) })

	fmt.Fprintln(out, "\n1. a controller with predicate.GenerationChanged:")
	web, err := client.AppsV1().Deployments(ns).Create(ctx, newDeployment("web"), metav1.CreateOptions{})
	if err != nil {
		return summary{}, err
	}
	fmt.Fprintf(out, "  created deployment web (generation %d)\n", web.Generation)
	if err := waitObserved(ctx, client, ns, "web", 1); err != nil {
		return summary{}, err
	}
	web, err = controller.Update(ctx, client.AppsV1().Deployments(ns), "web", func(d *appsv1.Deployment) error {
		replicas := int32(2)
		d.Spec.Replicas = &replicas
		return nil
	})
	if err != nil {
		return summary{}, err
	}
	fmt.Fprintf(out, "  scaled web to 2 replicas (generation %d)\n", web.Generation)
	if err := waitObserved(ctx, client, ns, "web", web.Generation); err != nil {
		return summary{}, err
	}
	time.Sleep(loopWindow) // give a loop, if there were one, time to show
	s := summary{WithPredicate: good.count.Load(), SpecVersions: web.Generation, LoopWindow: loopWindow}

	fmt.Fprintln(out, "\n2. the same reconciler without a predicate:")
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, newDeployment("web-loop"), metav1.CreateOptions{}); err != nil {
		return summary{}, err
	}
	fmt.Fprintln(out, "  created deployment web-loop; each status write is an update event…")
	time.Sleep(loopWindow)
	s.WithoutPredicate = loop.count.Load()
	return s, nil
}

func newDeployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	one := int32(1)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}

// waitObserved waits until the reconciler has recorded generation gen.
func waitObserved(ctx context.Context, c *kubernetes.Clientset, ns, name string, gen int64) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		d, err := c.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil && d.Status.ObservedGeneration >= gen {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s to be reconciled at generation %d: %w", name, gen, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
