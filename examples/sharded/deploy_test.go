package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/shard"
	"github.com/steadyctl/steady/testenv"
)

// deployment is deploy.yaml, read into typed objects.
type deployment struct {
	namespace          *corev1.Namespace
	serviceAccount     *corev1.ServiceAccount
	clusterRole        *rbacv1.ClusterRole
	clusterRoleBinding *rbacv1.ClusterRoleBinding
	role               *rbacv1.Role
	roleBinding        *rbacv1.RoleBinding
	deployment         *appsv1.Deployment
}

// readManifest decodes deploy.yaml strictly, as kubectl's validation would:
// an unknown or repeated field, or a kind client-go does not know, is an
// error. Each of its kinds must appear exactly once.
func readManifest(t *testing.T) deployment {
	t.Helper()
	data, err := os.ReadFile("deploy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	decode := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer().Decode
	var d deployment
	seen := map[string]bool{}
	r := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("deploy.yaml document %d: %v", i, err)
		}
		obj, gvk, err := decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("deploy.yaml document %d: %v", i, err)
		}
		if seen[gvk.Kind] {
			t.Fatalf("deploy.yaml: a second %s", gvk.Kind)
		}
		seen[gvk.Kind] = true
		switch o := obj.(type) {
		case *corev1.Namespace:
			d.namespace = o
		case *corev1.ServiceAccount:
			d.serviceAccount = o
		case *rbacv1.ClusterRole:
			d.clusterRole = o
		case *rbacv1.ClusterRoleBinding:
			d.clusterRoleBinding = o
		case *rbacv1.Role:
			d.role = o
		case *rbacv1.RoleBinding:
			d.roleBinding = o
		case *appsv1.Deployment:
			d.deployment = o
		default:
			t.Fatalf("deploy.yaml document %d: unexpected %s", i, gvk)
		}
	}
	if len(seen) != 7 {
		t.Fatalf("deploy.yaml holds %v, want a Namespace, ServiceAccount, ClusterRole, ClusterRoleBinding, Role, RoleBinding and Deployment", slices.Sorted(maps.Keys(seen)))
	}
	return d
}

// allows reports, as an error, what rules do not grant on resource of
// group.
func allows(rules []rbacv1.PolicyRule, group, resource string, verbs ...string) error {
	var missing []string
	for _, verb := range verbs {
		if !slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
			return slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb)
		}) {
			missing = append(missing, verb)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s %q not granted: %v", resource, group, missing)
	}
	return nil
}

// TestDeployManifest checks deploy.yaml's objects say what the README
// says: N replicas of the replica subcommand, identity and ring namespace
// from the downward API, probes where the replica serves them, the Lease
// rights the ring needs in its namespace (package shard's RBAC section)
// and the ConfigMap rights the operator needs, bound to the pods' service
// account.
func TestDeployManifest(t *testing.T) {
	d := readManifest(t)
	ns, sa := d.namespace.Name, d.serviceAccount.Name
	for what, got := range map[string]string{
		"ServiceAccount": d.serviceAccount.Namespace, "Role": d.role.Namespace,
		"RoleBinding": d.roleBinding.Namespace, "Deployment": d.deployment.Namespace,
	} {
		if got != ns {
			t.Errorf("%s in namespace %q, want the manifest's namespace %q", what, got, ns)
		}
	}

	spec := d.deployment.Spec
	if spec.Replicas == nil || *spec.Replicas < 2 {
		t.Errorf("Deployment replicas %v: the example runs several", spec.Replicas)
	}
	if spec.Selector == nil || !matches(spec.Selector.MatchLabels, spec.Template.Labels) {
		t.Errorf("Deployment selector %v does not select its pods, labelled %v", spec.Selector, spec.Template.Labels)
	}
	pod := spec.Template.Spec
	if pod.ServiceAccountName != sa {
		t.Errorf("pods run as service account %q, want %q", pod.ServiceAccountName, sa)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want the operator's", len(pod.Containers))
	}
	c := pod.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "replica" {
		t.Errorf("container args %v: want the replica subcommand", c.Args)
	}
	for name, field := range map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"} {
		i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name })
		if i < 0 || c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.FieldRef == nil || c.Env[i].ValueFrom.FieldRef.FieldPath != field {
			t.Errorf("env %s not set from the downward API's %s", name, field)
		}
	}
	_, port, _ := strings.Cut(defaultHealthAddr, ":")
	if len(c.Ports) != 1 || strconv.Itoa(int(c.Ports[0].ContainerPort)) != port ||
		c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" ||
		c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("ports %v and probes do not ask /readyz and /healthz at the replica's %s", c.Ports, defaultHealthAddr)
	}

	if err := allows(d.role.Rules, "coordination.k8s.io", "leases", "get", "list", "watch", "create", "update", "delete"); err != nil {
		t.Errorf("Role %s: %v", d.role.Name, err)
	}
	if err := allows(d.clusterRole.Rules, "", "configmaps", "get", "list", "watch", "update"); err != nil {
		t.Errorf("ClusterRole %s: %v", d.clusterRole.Name, err)
	}
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: sa, Namespace: ns}
	if r := d.roleBinding.RoleRef; r.Kind != "Role" || r.Name != d.role.Name || !slices.Contains(d.roleBinding.Subjects, subject) {
		t.Errorf("RoleBinding binds %v to %v, want Role %s to %v", d.roleBinding.Subjects, r, d.role.Name, subject)
	}
	if r := d.clusterRoleBinding.RoleRef; r.Kind != "ClusterRole" || r.Name != d.clusterRole.Name || !slices.Contains(d.clusterRoleBinding.Subjects, subject) {
		t.Errorf("ClusterRoleBinding binds %v to %v, want ClusterRole %s to %v", d.clusterRoleBinding.Subjects, r, d.clusterRole.Name, subject)
	}
}

// matches reports whether labels has every key and value of selector.
func matches(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}

// TestDeployRBACSuffices runs replicas with no more rights than
// deploy.yaml gives its pods: the manifest's Namespace, ServiceAccount,
// roles and bindings are created on the control plane, and two replicas
// impersonate the service account. They share ConfigMaps, one is killed and
// the other deletes its expired Lease and takes its objects, then stops and
// deletes its own: every right the ring and the operator use.
func TestDeployRBACSuffices(t *testing.T) {
	env := testenv.Shared(t)
	ctx := context.Background()
	d := readManifest(t)
	for _, obj := range []runtime.Object{d.namespace, d.serviceAccount, d.clusterRole, d.clusterRoleBinding, d.role, d.roleBinding} {
		if err := create(ctx, env, obj); err != nil {
			t.Fatal(err)
		}
	}
	ns := env.NewNamespace(t, "sharded-rbac-")
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + d.namespace.Name + ":" + d.serviceAccount.Name,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + d.namespace.Name, "system:authenticated"},
	}
	start := func(id string, crash bool) (stop func()) {
		// Errors only: a right missing shows as the ring's or the informers' errors.
		log := testr.NewWithOptions(t, testr.Options{Verbosity: -1}).WithName(id)
		rep, err := newReplica(cfg, "rbac", id, []shard.Option{shard.WithNamespace(d.namespace.Name),
			shard.WithLeaseDuration(storyLease), shard.WithRenewDeadline(storyRenew), shard.WithRetryPeriod(storyRetry),
			shard.WithReleaseOnCancel(!crash), shard.WithLogger(log)},
			manager.WithNamespace(ns), manager.WithLogger(log))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := rep.mgr.Start(ctx); err != nil {
				t.Errorf("replica %s: %v", id, err)
			}
		}()
		stop = func() { cancel(); <-done }
		t.Cleanup(stop)
		return stop
	}
	stopA, stopB := start("a", true), start("b", false)

	cms := env.Clientset.CoreV1().ConfigMaps(ns)
	for i := range 20 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-" + strconv.Itoa(i), Labels: map[string]string{enabledLabel: "true"}}}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	annotatedBy := func(want ...string) func() error {
		return func() error {
			list, err := cms.List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			by := map[string]int{}
			for _, cm := range list.Items {
				by[cm.Annotations[reconciledByAnnotation]]++
			}
			for r := range by {
				if !slices.Contains(want, r) {
					return fmt.Errorf("annotated by %v, want by %v only", by, want)
				}
			}
			if len(by) != len(want) {
				return fmt.Errorf("annotated by %v, want by each of %v", by, want)
			}
			return nil
		}
	}
	testenv.Eventually(t, 60*time.Second, "the ConfigMaps annotated by both replicas", annotatedBy("a", "b"))
	stopA()
	testenv.Eventually(t, storyLease+60*time.Second, "b to take a's ConfigMaps", annotatedBy("b"))
	leases := env.Clientset.CoordinationV1().Leases(d.namespace.Name)
	gone := func(name string) func() error {
		return func() error {
			_, err := leases.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("lease %s: %v", name, err)
		}
	}
	testenv.Eventually(t, 30*time.Second, "a's expired Lease deleted by b", gone("rbac-a"))
	stopB()
	testenv.Eventually(t, 30*time.Second, "b's Lease released", gone("rbac-b"))
}

// create creates one of the manifest's objects as the cluster's admin,
// unless it exists.
func create(ctx context.Context, env *testenv.Environment, obj runtime.Object) error {
	cs, opts := env.Clientset, metav1.CreateOptions{}
	var err error
	switch o := obj.(type) {
	case *corev1.Namespace:
		_, err = cs.CoreV1().Namespaces().Create(ctx, o, opts)
	case *corev1.ServiceAccount:
		_, err = cs.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, opts)
	case *rbacv1.ClusterRole:
		_, err = cs.RbacV1().ClusterRoles().Create(ctx, o, opts)
	case *rbacv1.ClusterRoleBinding:
		_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, o, opts)
	case *rbacv1.Role:
		_, err = cs.RbacV1().Roles(o.Namespace).Create(ctx, o, opts)
	case *rbacv1.RoleBinding:
		_, err = cs.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, opts)
	default:
		return fmt.Errorf("creating %T: not a kind of the manifest", obj)
	}
	if err != nil && !apierrors.IsAlreadyExists(err) { // from an earlier run (go test -count)
		return fmt.Errorf("creating the manifest's %T: %w", obj, err)
	}
	return nil
}
