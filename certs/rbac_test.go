package certs_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/certs"
	"github.com/steadyctl/steady/internal/testkit"
)

// The permissions the package documentation lists are enough: an
// Authority running as a user granted only those creates the Secret and
// injects the bundle into a configuration of each kind and a CRD.
func TestDocumentedPermissions(t *testing.T) {
	t.Parallel()
	env := testkit.Env(t)
	ns := testkit.Namespace(t, "certs-rbac-")
	user := "steady-certs-" + ns
	grant(t, ns, user)
	validating, mutating, crd := ns+"-v", ns+"-m", "widgets."+ns+".steady.dev"
	createValidating(t, validating, webhooks("no-such-namespace", "https://127.0.0.1:1"), nil)
	createMutating(t, mutating)
	installConversionCRD(t, ns, "https://127.0.0.1:1")

	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	a, err := certs.New(cfg, types.NamespacedName{Namespace: ns, Name: "webhook-certs"}, certs.WithHosts("127.0.0.1"),
		certs.WithValidatingWebhooks(validating), certs.WithMutatingWebhooks(mutating), certs.WithCRDs(crd), certs.WithLogger(testr.New(t)))
	if err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, a.Start)
	testkit.Eventually(t, 15*time.Second, "Ready with the documented permissions", a.Ready)
}

// grant gives user the Role and ClusterRole of the package documentation,
// in namespace ns, until the test ends.
func grant(t *testing.T, ns, user string) {
	t.Helper()
	rbac := testkit.Env(t).Clientset.RbacV1()
	ctx := context.Background()
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "webhook-certs"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch", "create", "update"}},
	}}
	if _, err := rbac.Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "webhook-certs"}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}}
	if _, err := rbac.RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cluster := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"}, Verbs: []string{"get", "update"}},
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get", "update"}},
	}}
	if _, err := rbac.ClusterRoles().Create(ctx, cluster, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(context.Background(), cluster.Name, metav1.DeleteOptions{}) })
	clusterBinding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: cluster.Name}}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, clusterBinding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = rbac.ClusterRoleBindings().Delete(context.Background(), clusterBinding.Name, metav1.DeleteOptions{})
	})
}
