package operatortest_test

// What the API server does that controller-runtime's fake client does not
// (see the package documentation): each test shows one such behaviour on the
// shared control plane.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/testenv"
)

// A write carrying a resourceVersion older than the stored one is refused
// with 409 Conflict: what a reconciler meets when its cache lags.
func TestStaleWriteConflicts(t *testing.T) {
	env := operatortest.New(t, nil, builtIn)
	cms := env.Clientset.CoreV1().ConfigMaps(env.Namespace)
	first, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"k": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second := first.DeepCopy()
	second.Data["k"] = "2"
	if _, err := cms.Update(t.Context(), second, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := first.DeepCopy()
	stale.Data["k"] = "3"
	if _, err := cms.Update(t.Context(), stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("update with the first resourceVersion %s after a second write: %v, want 409 Conflict", first.ResourceVersion, err)
	}
}

// scaler scales every Deployment to two replicas and records in its status
// the generation its change produced.
type scaler struct {
	deployments *client.Client[*appsv1.Deployment]
}

func (r *scaler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	d, err := r.deployments.Modify(ctx, req.Namespace, req.Name, func(d *appsv1.Deployment) error {
		d.Spec.Replicas = ptr.To[int32](2)
		return nil
	})
	if err == nil {
		_, err = r.deployments.ModifyStatus(ctx, req.Namespace, req.Name, func(s *appsv1.Deployment) error {
			s.Status.ObservedGeneration = d.Generation
			return nil
		})
	}
	return reconcile.Result{}, client.IgnoreNotFound(err)
}

// metadata.generation counts spec changes: the reconciler's scale-up is
// generation 2, its status write and a label change are not.
func TestGenerationCountsSpecChanges(t *testing.T) {
	env := operatortest.New(t, func(mgr *manager.Manager) error {
		deployments, err := client.For[*appsv1.Deployment](mgr.Factory(), "")
		if err != nil {
			return err
		}
		return builder.ControllerManagedBy(mgr).For(builder.Kind(&appsv1.Deployment{})).Complete(&scaler{deployments})
	}, builtIn)
	deployments := env.Clientset.AppsV1().Deployments(env.Namespace)
	d, err := deployments.Create(t.Context(), newDeployment(env.Namespace, "web"), metav1.CreateOptions{})
	if err != nil || d.Generation != 1 {
		t.Fatalf("created at generation %d (%v), want 1", d.Generation, err)
	}
	testenv.Eventually(t, 10*time.Second, "the scale-up to be observed", func() error {
		d, err = deployments.Get(t.Context(), "web", metav1.GetOptions{})
		if err == nil && (d.Generation != 2 || d.Status.ObservedGeneration != 2 || *d.Spec.Replicas != 2) {
			err = fmt.Errorf("generation %d, observed %d, replicas %d", d.Generation, d.Status.ObservedGeneration, *d.Spec.Replicas)
		}
		return err
	})
	d.Labels = map[string]string{"tier": "front"}
	if d, err = deployments.Update(t.Context(), d, metav1.UpdateOptions{}); err != nil || d.Generation != 2 {
		t.Fatalf("a label change: generation %d (%v), want it unchanged at 2", d.Generation, err)
	}
}

var widgets = schema.GroupVersionResource{Group: "operatortest.steady.dev", Version: "v1", Resource: "widgets"}

// widgetEnv runs no controller, on a control plane that serves Widgets,
// and returns a client of the test namespace's Widgets.
func widgetEnv(t *testing.T) dynamic.ResourceInterface {
	env := operatortest.New(t, nil, builtIn, operatortest.WithCRDFiles("testdata/widgets.yaml"))
	return dynamic.NewForConfigOrDie(env.Config).Resource(widgets).Namespace(env.Namespace)
}

func newWidget(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "operatortest.steady.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

func nested(t *testing.T, u *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// With the CRD's status subresource, an update of the object keeps the
// stored status and an update of the status keeps the stored spec; only the
// first counts as a new generation.
func TestStatusSubresource(t *testing.T) {
	ws := widgetEnv(t)
	w, err := ws.Create(t.Context(), newWidget("w", map[string]any{"size": int64(2)}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(w.Object, int64(3), "spec", "size")
	_ = unstructured.SetNestedField(w.Object, int64(7), "status", "observedGeneration")
	if w, err = ws.Update(t.Context(), w, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if size, status := nested(t, w, "spec", "size"), nested(t, w, "status"); size != int64(3) || status != nil || w.GetGeneration() != 2 {
		t.Fatalf("after Update: size %v, status %v, generation %d; want 3, no status (ignored), 2", size, status, w.GetGeneration())
	}
	_ = unstructured.SetNestedField(w.Object, int64(4), "spec", "size")
	_ = unstructured.SetNestedField(w.Object, int64(2), "status", "observedGeneration")
	if w, err = ws.UpdateStatus(t.Context(), w, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if size, observed := nested(t, w, "spec", "size"), nested(t, w, "status", "observedGeneration"); size != int64(3) || observed != int64(2) || w.GetGeneration() != 2 {
		t.Fatalf("after UpdateStatus: size %v, observedGeneration %v, generation %d; want 3 (ignored), 2, 2", size, observed, w.GetGeneration())
	}
}

// The CRD's schema defaults, validates and prunes what is written.
func TestSchemaDefaultsValidatesAndPrunes(t *testing.T) {
	ws := widgetEnv(t)
	w, err := ws.Create(t.Context(), newWidget("defaulted", map[string]any{"colour": "red"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if size, colour := nested(t, w, "spec", "size"), nested(t, w, "spec", "colour"); size != int64(1) || colour != nil {
		t.Errorf("stored spec.size %v, spec.colour %v; want 1 (the schema's default) and none (not in the schema: pruned)", size, colour)
	}
	_, err = ws.Create(t.Context(), newWidget("invalid", map[string]any{"size": int64(0)}), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.size") {
		t.Errorf("creating a widget of size 0: %v, want 422 Invalid naming spec.size (minimum 1)", err)
	}
}

// Built-in kinds are defaulted too, so a stored object never equals the
// one a reconciler built: compare the fields you set, not the whole spec.
func TestBuiltInDefaults(t *testing.T) {
	env := operatortest.New(t, nil, builtIn)
	want := newDeployment(env.Namespace, "web")
	d, err := env.Clientset.AppsV1().Deployments(env.Namespace).Create(t.Context(), want, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ptr.Deref(d.Spec.RevisionHistoryLimit, 0) != 10 ||
		ptr.Deref(d.Spec.ProgressDeadlineSeconds, 0) != 600 || c.TerminationMessagePath != "/dev/termination-log" ||
		c.ImagePullPolicy != corev1.PullIfNotPresent || d.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		t.Errorf("stored spec lacks the API server's defaults: %+v", d.Spec)
	}
	if apiequality.Semantic.DeepEqual(want.Spec, d.Spec) {
		t.Error("the stored spec equals the one sent: nothing was defaulted")
	}
}

// NamespaceLifecycle admission: no objects in a namespace that does not
// exist, nor in one being deleted.
func TestNamespaceLifecycle(t *testing.T) {
	env := operatortest.New(t, nil, builtIn)
	var gone string
	t.Run("namespace", func(t *testing.T) { gone = testenv.Shared(t).NewNamespace(t, "gone-") })
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}
	_, err := env.Clientset.CoreV1().ConfigMaps("never-created").Create(t.Context(), cm, metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("create in a namespace that does not exist: %v, want NotFound", err)
	}
	_, err = env.Clientset.CoreV1().ConfigMaps(gone).Create(t.Context(), cm, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "being terminated") {
		t.Errorf("create in a namespace being deleted: %v, want Forbidden", err)
	}
}

// Owner references are validated; the garbage collector that acts on them
// is part of kube-controller-manager, which testenv does not run.
func TestOwnerReferences(t *testing.T) {
	env := operatortest.New(t, nil, builtIn)
	cms := env.Clientset.CoreV1().ConfigMaps(env.Namespace)
	owner, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, Controller: ptr.To(true)}
	child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "child", OwnerReferences: []metav1.OwnerReference{ref}}}
	if _, err := cms.Create(t.Context(), child, metav1.CreateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "uid") {
		t.Errorf("owner reference without uid: %v, want 422 Invalid naming the uid", err)
	}
	child.OwnerReferences[0].UID = owner.UID
	if _, err := cms.Create(t.Context(), child, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(t.Context(), owner.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(t.Context(), child.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("child after its owner's deletion: %v; want it still there (no garbage collector)", err)
	}
}

// A finalizer holds a deleted object back: deletion sets deletionTimestamp
// and bumps the generation, new finalizers are refused, and removing the
// last one lets the object go.
func TestFinalizers(t *testing.T) {
	ws := widgetEnv(t)
	w := newWidget("held", map[string]any{})
	w.SetFinalizers([]string{"operatortest.steady.dev/hold"})
	if _, err := ws.Create(t.Context(), w, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ws.Delete(t.Context(), "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := ws.Get(t.Context(), "held", metav1.GetOptions{})
	if err != nil || w.GetDeletionTimestamp() == nil || w.GetGeneration() != 2 {
		t.Fatalf("deleted widget with a finalizer: %v; want it there, with a deletionTimestamp and generation 2 (was 1)", err)
	}
	more := w.DeepCopy()
	more.SetFinalizers(append(more.GetFinalizers(), "operatortest.steady.dev/more"))
	if _, err := ws.Update(t.Context(), more, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "no new finalizers") {
		t.Errorf("adding a finalizer to a widget being deleted: %v, want 422 Invalid", err)
	}
	w.SetFinalizers(nil)
	if _, err := ws.Update(t.Context(), w, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Get(t.Context(), "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("widget after its last finalizer was removed: %v, want NotFound", err)
	}
}

// Admission policies apply: a ValidatingAdmissionPolicy the test installs
// refuses what it forbids. (Dry-run writes, so that nothing is created
// before the API server has loaded the policy.)
func TestAdmissionPolicy(t *testing.T) {
	env := operatortest.New(t, nil, builtIn)
	name := "operatortest-" + env.Namespace
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "!has(object.data) || !('forbidden' in object.data)", Message: "no key named forbidden"}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{corev1.LabelMetadataName: env.Namespace}}},
		},
	}
	adm := env.Clientset.AdmissionregistrationV1()
	if _, err := adm.ValidatingAdmissionPolicies().Create(t.Context(), policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = adm.ValidatingAdmissionPolicies().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	if _, err := adm.ValidatingAdmissionPolicyBindings().Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = adm.ValidatingAdmissionPolicyBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
	})

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"forbidden": "yes"}}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	testenv.Eventually(t, 30*time.Second, "the policy to refuse a ConfigMap with a key named forbidden", func() error {
		_, err := env.Clientset.CoreV1().ConfigMaps(env.Namespace).Create(t.Context(), cm, dryRun)
		if err == nil || !strings.Contains(err.Error(), "no key named forbidden") {
			return fmt.Errorf("dry-run create: %v", err)
		}
		return nil
	})
	cm.Data = map[string]string{"allowed": "yes"}
	if _, err := env.Clientset.CoreV1().ConfigMaps(env.Namespace).Create(t.Context(), cm, dryRun); err != nil {
		t.Errorf("a ConfigMap the policy allows: %v", err)
	}
}
