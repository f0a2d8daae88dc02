package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
	"github.com/steadyctl/steady/finalizer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object/applyconfig"
	"github.com/steadyctl/steady/reconcile"
)

// cleanupFinalizer holds a deleted Foo back: the API server only marks it
// (metadata.deletionTimestamp) until the operator has cleaned up and the
// finalizer is gone. Package finalizer does the bookkeeping.
const cleanupFinalizer = "samplecontroller.steady.dev/cleanup"

// reconciler makes a Foo's Deployment match the Foo's spec, and the Foo's
// status match the Deployment's. Reconcile narrates; the work is apply and
// cleanup, which finalizer.New calls with its finalizer in place.
type reconciler struct {
	foos        *client.Client[*v1beta1.Foo]
	deployments *client.Client[*appsv1.Deployment]
	scheme      *runtime.Scheme
	recorder    manager.EventRecorder
	out         io.Writer
	finalizing  *finalizer.Reconciler[*v1beta1.Foo]
	counts      counts
	busy        atomic.Int32 // reconciles in progress
}

// newReconciler returns the Foo reconciler over the given clients.
func newReconciler(foos *client.Client[*v1beta1.Foo], deployments *client.Client[*appsv1.Deployment],
	scheme *runtime.Scheme, recorder manager.EventRecorder, out io.Writer) (*reconciler, error) {
	r := &reconciler{foos: foos, deployments: deployments, scheme: scheme, recorder: recorder, out: out}
	var err error
	r.finalizing, err = finalizer.New(foos, cleanupFinalizer, finalizer.Funcs[*v1beta1.Foo]{Apply: r.apply, Cleanup: r.cleanup})
	return r, err
}

// idle reports whether no reconcile is in progress, so that every line of
// narration of the reconciles that made a change has been written.
func (r *reconciler) idle() bool { return r.busy.Load() == 0 }

// Reconcile brings one Foo and its Deployment in line, and says what it did.
func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.busy.Add(1)
	defer r.busy.Add(-1)
	n := r.counts.reconciles.Add(1)
	var did notes
	res, err := r.finalizing.Reconcile(context.WithValue(ctx, notesKey{}, &did), req)
	switch {
	case err != nil:
		did.add("error: %v", err)
	case len(did) == 0:
		did.add("in sync")
	}
	fmt.Fprintf(r.out, "  reconcile #%d of foo %s: %s\n", n, req.Name, strings.Join(did, "; "))
	return res, err
}

// apply runs with the finalizer in place, on a Foo that is not being
// deleted.
func (r *reconciler) apply(ctx context.Context, foo *v1beta1.Foo) (reconcile.Result, error) {
	d, err := r.ensureDeployment(ctx, foo)
	if err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, r.updateStatus(ctx, foo, d)
}

// ensureDeployment applies the Deployment the Foo asks for, with
// Server-Side Apply, when it is missing or has other replicas or another
// image, and returns it. It refuses a Deployment the Foo does not control.
func (r *reconciler) ensureDeployment(ctx context.Context, foo *v1beta1.Foo) (*appsv1.Deployment, error) {
	did := notesOf(ctx)
	name, want, image := foo.Spec.Deployment.Name, replicasOf(foo), imageOf(foo)
	if name == "" { // the CRD's schema forbids it; a retry would not help
		return nil, reconcile.TerminalError(errors.New("spec.deployment.name is empty"))
	}
	d, err := r.deployments.Get(ctx, foo.Namespace, name) // from the cache
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, err
	}
	if exists && !metav1.IsControlledBy(d, foo) {
		// Someone else's Deployment: never adopt or change it. Retrying
		// cannot help; a change to the Foo (a new event) can.
		msg := fmt.Sprintf("deployment %s already exists and is not controlled by foo %s", name, foo.Name)
		r.recorder.Eventf(foo, nil, corev1.EventTypeWarning, "ErrResourceExists", "Refused", msg)
		r.counts.refused.Add(1)
		return nil, reconcile.TerminalError(errors.New(msg))
	}
	have, haveImage := int32(0), ""
	if exists {
		have, haveImage = ptr.Deref(d.Spec.Replicas, 1), containerImage(d)
		if have == want && haveImage == image {
			return d, nil
		}
	}
	cfg, err := r.desiredDeployment(foo)
	if err != nil {
		return nil, err
	}
	// The controller's name is the field manager; forcing takes the
	// fields back from anyone who changed them (a kubectl scale, say),
	// since this operator alone decides them.
	if d, err = r.deployments.Apply(ctx, cfg, client.ForceOwnership()); err != nil {
		return nil, fmt.Errorf("applying deployment %s: %w", name, err)
	}
	switch {
	case !exists:
		r.counts.created.Add(1)
		did.add("created deployment %s (replicas: %d) controlled by foo %s", name, want, foo.Name)
	case have != want:
		r.counts.scaled.Add(1)
		did.add("scaled deployment %s from %d to %d replicas", name, have, want)
	}
	if exists && haveImage != image {
		did.add("changed deployment %s's image from %s to %s", name, haveImage, image)
	}
	return d, nil
}

// containerImage is the image of the container the operator decides.
func containerImage(d *appsv1.Deployment) string {
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == containerName {
			return c.Image
		}
	}
	return ""
}

// containerName names the Deployment's one container.
const containerName = "app"

// desiredDeployment is the Deployment foo asks for, as an apply
// configuration: only the fields this operator decides. Its controller
// reference makes Owns(Deployment) map the Deployment's events back to
// foo, and lets the garbage collector delete it with foo.
func (r *reconciler) desiredDeployment(foo *v1beta1.Foo) (*appsv1ac.DeploymentApplyConfiguration, error) {
	ref, err := applyconfig.ControllerReference(foo, foo.Namespace, r.scheme)
	if err != nil {
		return nil, err
	}
	name := foo.Spec.Deployment.Name
	labels := map[string]string{"app": name}
	return appsv1ac.Deployment(name, foo.Namespace).
		WithLabels(labels).WithLabels(map[string]string{"controller": foo.Name}).
		WithOwnerReferences(ref).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(replicasOf(foo)).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(labels).
				WithSpec(corev1ac.PodSpec().WithContainers(
					corev1ac.Container().WithName(containerName).WithImage(imageOf(foo)))))), nil
}

// updateStatus copies the Deployment's available replicas into the Foo's
// status, with the generation they answer, when that changes anything.
func (r *reconciler) updateStatus(ctx context.Context, foo *v1beta1.Foo, d *appsv1.Deployment) error {
	// The generation this reconcile acted on, not the fresh read's, which
	// may be newer: that spec has not been acted on yet.
	want := v1beta1.FooStatus{AvailableReplicas: d.Status.AvailableReplicas, ObservedGeneration: foo.Generation}
	if foo.Status == want {
		return nil
	}
	var before v1beta1.FooStatus
	_, err := r.foos.ModifyStatus(ctx, foo.Namespace, foo.Name, func(f *v1beta1.Foo) error {
		before, f.Status = f.Status, want
		return nil
	})
	if err != nil {
		return client.IgnoreNotFound(err)
	}
	if before != want { // else the cache was behind our own last write
		r.counts.statusWrites.Add(1)
		notesOf(ctx).add("status %s", statusChange(before, want))
	}
	return nil
}

// statusChange describes the fields that differ between two statuses.
func statusChange(before, after v1beta1.FooStatus) string {
	var changes []string
	if before.AvailableReplicas != after.AvailableReplicas {
		changes = append(changes, fmt.Sprintf("availableReplicas %d→%d", before.AvailableReplicas, after.AvailableReplicas))
	}
	if before.ObservedGeneration != after.ObservedGeneration {
		changes = append(changes, fmt.Sprintf("observedGeneration %d→%d", before.ObservedGeneration, after.ObservedGeneration))
	}
	return strings.Join(changes, ", ")
}

// cleanup runs for a Foo being deleted; once it succeeds, the finalizer
// goes and the API server deletes the Foo.
//
// In a cluster with a kube-controller-manager, the garbage collector would
// delete the Deployment anyway, by its owner reference. A finalizer is for
// what the garbage collector cannot do — external resources, a final
// report — and for clusters without one, like testenv's. Deleting the
// Deployment here shows the pattern and makes the clean-up visible.
func (r *reconciler) cleanup(ctx context.Context, foo *v1beta1.Foo) (reconcile.Result, error) {
	did, name := notesOf(ctx), foo.Spec.Deployment.Name
	d, err := r.deployments.Get(ctx, foo.Namespace, name)
	switch {
	case apierrors.IsNotFound(err):
		did.add("clean-up: deployment %s is already gone", name)
	case err != nil:
		return reconcile.Result{}, err
	case !metav1.IsControlledBy(d, foo):
		did.add("clean-up: left deployment %s alone, it is not ours", name)
	default:
		// The UID precondition keeps us from deleting a Deployment that
		// someone re-created under the same name since the cache saw it.
		err := r.deployments.Delete(ctx, foo.Namespace, name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(d.UID))})
		if client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, err
		}
		r.counts.deleted.Add(1)
		did.add("clean-up: deleted deployment %s", name)
	}
	r.counts.cleanedUp(foo.UID)
	did.add("the finalizer goes: the API server can delete the foo now")
	return reconcile.Result{}, nil
}
