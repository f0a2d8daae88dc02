package main

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/examples/internal/demo"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
)

// summary is what the example observed.
type summary struct {
	WithPredicate    int32 // reconciles of "web", filtered by GenerationChanged
	SpecVersions     int64 // generations "web" went through
	WithoutPredicate int32 // reconciles of "web-loop" within LoopWindow
	LoopWindow       time.Duration
	Throttle         string // the operator's client-side throttling, which bounds the loop
}

// reconciler writes what it saw into the Deployment's status: the
// generation it acted on and how many times it ran. It is the README's
// operator: it reads and writes through a client.
type reconciler struct {
	deployments client.Interface[*appsv1.Deployment]
	out         io.Writer
	count       atomic.Int32
	quiet       bool // do not print every reconcile (the looping run would flood)
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	n := r.count.Add(1)
	d, err := r.deployments.ModifyStatus(ctx, req.Namespace, req.Name, func(d *appsv1.Deployment) error {
		d.Status.ObservedGeneration = d.Generation
		d.Status.Conditions = []appsv1.DeploymentCondition{{
			Type: "Reconciled", Status: corev1.ConditionTrue, Reason: "Quickstart",
			Message: fmt.Sprintf("reconcile #%d", n),
		}}
		return nil
	})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err) // deleted: nothing to do
	}
	if !r.quiet {
		fmt.Fprintf(r.out, "  reconcile #%d of %s: generation %d, status written\n", n, req.Name, d.Generation)
	}
	return reconcile.Result{}, nil
}

// run plays the example in a fresh namespace of the cluster at cfg.
func run(ctx context.Context, cfg *rest.Config, out io.Writer, loopWindow time.Duration) (summary, error) {
	out = demo.LockedWriter(out) // reconcilers print from their own goroutines
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return summary{}, err
	}
	nsObj, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "steady-quickstart-"}}, metav1.CreateOptions{})
	if err != nil {
		return summary{}, fmt.Errorf("creating a namespace: %w", err)
	}
	ns := nsObj.Name
	defer cs.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), ns, metav1.DeleteOptions{})
	fmt.Fprintf(out, "working in namespace %s\n", ns)

	// The operator: a manager whose caches hold this namespace, a client
	// of Deployments, and two controllers over the one shared informer.
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns))
	if err != nil {
		return summary{}, err
	}
	s := summary{LoopWindow: loopWindow, Throttle: throttling(mgr.Cluster().Config())}
	fmt.Fprintf(out, "client-side throttling: %s\n", s.Throttle)
	deployments, err := client.For[*appsv1.Deployment](mgr.Factory(), "")
	if err != nil {
		return summary{}, err
	}
	onlyNamed := func(name string) predicate.Predicate[*appsv1.Deployment] {
		return predicate.NewFilter(func(d *appsv1.Deployment) bool { return d.Name == name })
	}
	good := &reconciler{deployments: deployments, out: out}
	loop := &reconciler{deployments: deployments, out: out, quiet: true}
	if err := builder.ControllerManagedBy(mgr).Named("web").
		For(builder.Kind(&appsv1.Deployment{}, onlyNamed("web"), predicate.GenerationChanged[*appsv1.Deployment]())).
		Complete(good); err != nil {
		return summary{}, err
	}
	if err := builder.ControllerManagedBy(mgr).Named("web-loop").
		For(builder.Kind(&appsv1.Deployment{}, onlyNamed("web-loop"))).
		Complete(loop); err != nil {
		return summary{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	started := make(chan error, 1)
	go func() { started <- mgr.Start(ctx) }()
	defer func() { cancel(); <-started }()

	fmt.Fprintln(out, "\n1. a controller with predicate.GenerationChanged:")
	web, err := cs.AppsV1().Deployments(ns).Create(ctx, newDeployment("web"), metav1.CreateOptions{})
	if err != nil {
		return summary{}, err
	}
	fmt.Fprintf(out, "  created deployment web (generation %d)\n", web.Generation)
	if err := waitObserved(ctx, cs, ns, "web", 1); err != nil {
		return summary{}, err
	}
	apps := cs.AppsV1().Deployments(ns)
	web, err = demo.Update(ctx, apps.Get, apps.Update, "web", func(d *appsv1.Deployment) {
		replicas := int32(2)
		d.Spec.Replicas = &replicas
	})
	if err != nil {
		return summary{}, err
	}
	fmt.Fprintf(out, "  scaled web to 2 replicas (generation %d)\n", web.Generation)
	if err := waitObserved(ctx, cs, ns, "web", web.Generation); err != nil {
		return summary{}, err
	}
	time.Sleep(loopWindow) // give a loop, if there were one, time to show
	s.WithPredicate, s.SpecVersions = good.count.Load(), web.Generation

	fmt.Fprintln(out, "\n2. the same reconciler without a predicate:")
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, newDeployment("web-loop"), metav1.CreateOptions{}); err != nil {
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

// throttling says how many requests a second the operator's clients may
// send (see cluster.Throttle): each turn of the loop of step 2 is a status
// write, so it spins at most that fast. A kubeconfig's cluster gets
// steady's default; the local control plane's config turns throttling off.
func throttling(cfg *rest.Config) string {
	t, ok := cluster.ThrottleOf(cfg)
	switch {
	case !ok:
		return "the config's own rate limiter"
	case t == cluster.NoThrottle:
		return "off (the config says QPS -1): only the API server slows a loop"
	case t == cluster.DefaultThrottle:
		return t.String() + " (steady's default, cluster.DefaultThrottle): a loop makes at most that many writes a second"
	}
	return t.String()
}
