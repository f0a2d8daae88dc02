package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/examples/foo/api/v1alpha1"
	"github.com/steadyctl/steady/reconcile"
)

// finalizer holds a deleted Foo back: the API server only marks it
// (metadata.deletionTimestamp) until the operator has cleaned up and removed
// the finalizer.
const finalizer = "samplecontroller.steady.dev/cleanup"

// reconciler makes a Foo's Deployment match the Foo's spec, and the Foo's
// status match the Deployment's.
type reconciler struct {
	foos        *client.Client[*v1alpha1.Foo]
	deployments *client.Client[*appsv1.Deployment]
	recorder    record.EventRecorder
	out         io.Writer
	counts      counts
	busy        atomic.Int32 // reconciles in progress
}

// idle reports whether no reconcile is in progress, so that every line of
// narration of the reconciles that made a change has been written.
func (r *reconciler) idle() bool { return r.busy.Load() == 0 }

// counts is what the reconciler has done, for the summary.
type counts struct {
	reconciles, created, scaled, statusWrites, refused, cleanups, deleted atomic.Int32
}

// notes collects what one reconcile changed, for its line of narration.
type notes []string

func (n *notes) add(format string, args ...any) { *n = append(*n, fmt.Sprintf(format, args...)) }

// Reconcile brings one Foo and its Deployment in line, and says what it did.
func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.busy.Add(1)
	defer r.busy.Add(-1)
	n := r.counts.reconciles.Add(1)
	var did notes
	err := r.reconcile(ctx, req, &did)
	switch {
	case err != nil:
		did.add("error: %v", err)
	case len(did) == 0:
		did.add("in sync")
	}
	fmt.Fprintf(r.out, "  reconcile #%d of foo %s: %s\n", n, req.Name, strings.Join(did, "; "))
	return reconcile.Result{}, err
}

func (r *reconciler) reconcile(ctx context.Context, req reconcile.Request, did *notes) error {
	foo, err := r.foos.Get(ctx, req.Namespace, req.Name) // from the cache
	if apierrors.IsNotFound(err) {
		did.add("gone")
		return nil
	}
	if err != nil {
		return err
	}
	if foo.DeletionTimestamp != nil {
		return r.finalize(ctx, foo, did)
	}
	// The finalizer goes on before the Deployment is created, so that no
	// Deployment exists that a deletion could leave behind uncleaned.
	if foo, err = r.ensureFinalizer(ctx, foo, did); err != nil || foo == nil {
		return err
	}
	d, err := r.ensureDeployment(ctx, foo, did)
	if err != nil {
		return err
	}
	return r.updateStatus(ctx, foo, d, did)
}

// ensureFinalizer adds the finalizer if it is missing, and returns the Foo
// (nil if it is gone).
func (r *reconciler) ensureFinalizer(ctx context.Context, foo *v1alpha1.Foo, did *notes) (*v1alpha1.Foo, error) {
	if slices.Contains(foo.Finalizers, finalizer) {
		return foo, nil
	}
	added := false
	foo, err := r.foos.Modify(ctx, foo.Namespace, foo.Name, func(f *v1alpha1.Foo) error {
		// The cache may be behind: decide on the fresh read. A Foo being
		// deleted cannot take new finalizers; its deletion event follows.
		if f.DeletionTimestamp == nil && !slices.Contains(f.Finalizers, finalizer) {
			f.Finalizers = append(f.Finalizers, finalizer)
			added = true
		}
		return nil
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("adding finalizer: %w", err)
	}
	if added {
		did.add("added finalizer %s", finalizer)
	}
	return foo, nil
}

// ensureDeployment creates the Foo's Deployment, or scales it to the Foo's
// replicas, and returns it. It refuses a Deployment the Foo does not control.
func (r *reconciler) ensureDeployment(ctx context.Context, foo *v1alpha1.Foo, did *notes) (*appsv1.Deployment, error) {
	name, want := foo.Spec.DeploymentName, ptr.Deref(foo.Spec.Replicas, 1)
	if name == "" { // the CRD's schema forbids it; a retry would not help
		return nil, reconcile.TerminalError(errors.New("spec.deploymentName is empty"))
	}
	d, err := r.deployments.Get(ctx, foo.Namespace, name)
	if apierrors.IsNotFound(err) {
		if d, err = r.deployments.Create(ctx, newDeployment(foo)); err != nil {
			return nil, err
		}
		r.counts.created.Add(1)
		did.add("created deployment %s (replicas: %d) controlled by foo %s", name, want, foo.Name)
		return d, nil
	}
	if err != nil {
		return nil, err
	}
	if !metav1.IsControlledBy(d, foo) {
		// Someone else's Deployment: never adopt or change it. Retrying
		// cannot help; a change to the Foo (a new event) can.
		msg := fmt.Sprintf("deployment %s already exists and is not controlled by foo %s", name, foo.Name)
		r.recorder.Event(foo, corev1.EventTypeWarning, "ErrResourceExists", msg)
		r.counts.refused.Add(1)
		return nil, reconcile.TerminalError(errors.New(msg))
	}
	if have := ptr.Deref(d.Spec.Replicas, 1); have != want {
		d, err = r.deployments.Modify(ctx, foo.Namespace, name, func(d *appsv1.Deployment) error {
			d.Spec.Replicas = ptr.To(want)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("scaling deployment %s: %w", name, err)
		}
		r.counts.scaled.Add(1)
		did.add("scaled deployment %s from %d to %d replicas", name, have, want)
	}
	return d, nil
}

// updateStatus copies the Deployment's available replicas into the Foo's
// status, with the generation they answer, when that changes anything.
func (r *reconciler) updateStatus(ctx context.Context, foo *v1alpha1.Foo, d *appsv1.Deployment, did *notes) error {
	// The generation this reconcile acted on, not the fresh read's, which
	// may be newer: that spec has not been acted on yet.
	want := v1alpha1.FooStatus{AvailableReplicas: d.Status.AvailableReplicas, ObservedGeneration: foo.Generation}
	if foo.Status == want {
		return nil
	}
	var before v1alpha1.FooStatus
	_, err := r.foos.ModifyStatus(ctx, foo.Namespace, foo.Name, func(f *v1alpha1.Foo) error {
		before, f.Status = f.Status, want
		return nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("updating status: %w", err)
	}
	if before != want { // else the cache was behind our own last write
		r.counts.statusWrites.Add(1)
		did.add("status %s", statusChange(before, want))
	}
	return nil
}

// statusChange describes the fields that differ between two statuses.
func statusChange(before, after v1alpha1.FooStatus) string {
	var changes []string
	if before.AvailableReplicas != after.AvailableReplicas {
		changes = append(changes, fmt.Sprintf("availableReplicas %d→%d", before.AvailableReplicas, after.AvailableReplicas))
	}
	if before.ObservedGeneration != after.ObservedGeneration {
		changes = append(changes, fmt.Sprintf("observedGeneration %d→%d", before.ObservedGeneration, after.ObservedGeneration))
	}
	return strings.Join(changes, ", ")
}

// finalize runs the clean-up of a Foo being deleted, then removes the
// finalizer so that the API server can delete it.
//
// In a cluster with a kube-controller-manager, the garbage collector would
// delete the Deployment anyway, by its owner reference. A finalizer is for
// what the garbage collector cannot do — external resources, a final
// report — and for clusters without one, like testenv's. Deleting the
// Deployment here shows the pattern and makes the clean-up visible.
func (r *reconciler) finalize(ctx context.Context, foo *v1alpha1.Foo, did *notes) error {
	if !slices.Contains(foo.Finalizers, finalizer) {
		did.add("being deleted, already cleaned up")
		return nil
	}
	name := foo.Spec.DeploymentName
	d, err := r.deployments.Get(ctx, foo.Namespace, name)
	switch {
	case apierrors.IsNotFound(err):
		did.add("clean-up: deployment %s is already gone", name)
	case err != nil:
		return err
	case !metav1.IsControlledBy(d, foo):
		did.add("clean-up: left deployment %s alone, it is not ours", name)
	default:
		// The UID precondition keeps us from deleting a Deployment that
		// someone re-created under the same name since the cache saw it.
		err := r.deployments.Delete(ctx, foo.Namespace, name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(d.UID))})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		r.counts.deleted.Add(1)
		did.add("clean-up: deleted deployment %s", name)
	}
	_, err = r.foos.Modify(ctx, foo.Namespace, foo.Name, func(f *v1alpha1.Foo) error {
		f.Finalizers = slices.DeleteFunc(f.Finalizers, func(s string) bool { return s == finalizer })
		return nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing finalizer: %w", err)
	}
	r.counts.cleanups.Add(1)
	did.add("removed finalizer: the API server can delete the foo now")
	return nil
}

// newDeployment returns the Deployment foo asks for, with an owner reference
// that makes foo its controller: Owns(Deployment) maps the Deployment's
// events back to foo through it, and the garbage collector deletes the
// Deployment with foo (blockOwnerDeletion makes a foreground deletion of foo
// wait for it).
func newDeployment(foo *v1alpha1.Foo) *appsv1.Deployment {
	d := deployment(foo.Namespace, foo.Spec.DeploymentName, ptr.Deref(foo.Spec.Replicas, 1))
	d.Labels["controller"] = foo.Name
	d.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(foo, v1alpha1.SchemeGroupVersion.WithKind("Foo"))}
	return d
}

// deployment returns a Deployment of a pause container: testenv runs no
// pods, and on a real cluster pause is the smallest image there is.
func deployment(namespace, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app": name}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}
