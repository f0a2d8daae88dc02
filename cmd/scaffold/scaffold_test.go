package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// nameSets are the projects the unit tests render: the example,
// and names that stress the derived ones (a -ies plural, initialisms,
// kinds that are Go keywords or package names, alpha and beta versions).
var nameSets = []project{
	{Module: "example.com/guestbook", Group: "webapp.example.com", Version: "v1", Kind: "Guestbook"},
	{Module: "example.com/shop/payment-operator", Group: "payments.shop.example.org", Version: "v1alpha1", Kind: "PaymentPolicy", Webhooks: true},
	{Module: "github.com/Example/URL_Operator/v2", Group: "net.example.io", Version: "v2beta3", Kind: "URLMap", Webhooks: true},
	{Module: "example.com/types", Group: "1types.example.com", Version: "v1", Kind: "Type"},
	{Module: "example.com/clients", Group: "client.example.com", Version: "v3", Kind: "Client", Webhooks: true},
}

// rendered renders p, failing t on any error.
func rendered(t *testing.T, p project) (*project, map[string][]byte) {
	t.Helper()
	proj, err := newProject(p)
	if err != nil {
		t.Fatal(err)
	}
	proj.SteadyVersion, proj.SteadyDir = unpublished, "/src/steady"
	files, err := render(proj)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		out[f.path] = f.data
	}
	return proj, out
}

// TestRender renders each name set and checks what every project must
// hold: the files the README's layout lists, Go that parses (render
// formats it, so it also compiles as far as gofmt can tell), no template
// left unexpanded, and names derived once and used everywhere.
func TestRender(t *testing.T) {
	for _, set := range nameSets {
		t.Run(set.Kind, func(t *testing.T) {
			p, files := rendered(t, set)
			want := []string{
				"go.mod", "main.go", "README.md", "Dockerfile", ".dockerignore", ".gitignore",
				"api/" + p.Version + "/groupversion_info.go", "api/" + p.Version + "/" + p.KindLower() + "_types.go",
				"internal/controller/scheme.go", "internal/controller/" + p.KindLower() + "_controller.go",
				"internal/controller/" + p.KindLower() + "_controller_test.go",
				"config/manager/manager.yaml", "config/manager/metrics_service.yaml",
				"config/rbac/service_account.yaml", "config/rbac/role_binding.yaml",
				"config/rbac/leader_election.yaml", "config/rbac/metrics.yaml",
				"samples/" + p.Version + "_" + p.KindLower() + ".yaml",
			}
			if p.Webhooks {
				want = append(want, "internal/webhook/"+p.Version+"/"+p.KindLower()+"_webhook.go",
					"internal/webhook/"+p.Version+"/"+p.KindLower()+"_webhook_test.go",
					"config/manager/webhook_service.yaml", "config/webhook/manifests.yaml", "config/rbac/webhook_certs.yaml")
			}
			var got []string
			for name := range files {
				got = append(got, name)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for name, data := range files {
				if bytes.Contains(data, []byte("<no value>")) || bytes.Contains(data, []byte("{{")) {
					t.Errorf("%s: a template action left in it", name)
				}
				if strings.HasSuffix(name, ".go") {
					if _, err := parser.ParseFile(token.NewFileSet(), name, data, parser.ParseComments); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
			}
			checkGoMod(t, p, files["go.mod"])
			checkMain(t, p, string(files["main.go"]))
			checkManifests(t, p, files)
		})
	}
}

func checkGoMod(t *testing.T, p *project, gomod []byte) {
	t.Helper()
	s := string(gomod)
	if modulePath(s) != p.Module || !strings.Contains(s, "require "+steadyModule+" "+unpublished) ||
		!strings.Contains(s, "replace "+steadyModule+" => /src/steady") {
		t.Errorf("go.mod does not declare %s and replace steady with the checkout:\n%s", p.Module, s)
	}
}

// checkMain checks that main.go names the Lease, the webhooks and the
// generate command the manifests and README use.
func checkMain(t *testing.T, p *project, main string) {
	t.Helper()
	want := []string{`"` + p.LeaseName() + `"`, "//go:generate " + p.GenerateCommand(), "manager.RegisterFlags", "cluster.RegisterFlags", `flag.Int("v"`}
	if p.Webhooks {
		want = append(want, `"`+p.WebhookService()+`"`, `"`+p.WebhookSecret()+`"`, `"`+p.ValidatingWebhooks()+`"`, `"`+p.MutatingWebhooks()+`"`)
	}
	for _, w := range want {
		if !strings.Contains(main, w) {
			t.Errorf("main.go lacks %s", w)
		}
	}
}

// checkManifests decodes every manifest strictly and checks that they
// refer to each other by the right names.
func checkManifests(t *testing.T, p *project, files map[string][]byte) {
	t.Helper()
	var ms []manifest
	for name, data := range files {
		if !strings.HasPrefix(name, "config/") {
			continue
		}
		got, err := decodeManifests(name, data)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, got...)
	}
	roles := map[string]bool{p.ManagerRole(): true} // role.yaml is controller-gen's
	var deployment *appsv1.Deployment
	var services []*corev1.Service
	var subjects [][]rbacv1.Subject
	var roleRefs []string
	var webhooks []admissionregistrationv1.WebhookClientConfig
	for _, m := range ms {
		obj, err := strictDecode(m)
		if err != nil {
			t.Error(err)
			continue
		}
		if ns := m.obj.GetNamespace(); ns != "" && ns != p.Namespace() {
			t.Errorf("%s in namespace %s, want %s", m, ns, p.Namespace())
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			deployment = o
		case *corev1.Service:
			services = append(services, o)
		case *rbacv1.Role:
			roles[o.Name] = true
		case *rbacv1.ClusterRole:
			roles[o.Name] = true
		case *rbacv1.RoleBinding:
			subjects, roleRefs = append(subjects, o.Subjects), append(roleRefs, o.RoleRef.Name)
		case *rbacv1.ClusterRoleBinding:
			subjects, roleRefs = append(subjects, o.Subjects), append(roleRefs, o.RoleRef.Name)
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			for _, w := range o.Webhooks {
				webhooks = append(webhooks, w.ClientConfig)
				checkWebhook(t, p, o.Name, w.FailurePolicy, w.SideEffects, w.ClientConfig, "validate")
			}
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			for _, w := range o.Webhooks {
				webhooks = append(webhooks, w.ClientConfig)
				checkWebhook(t, p, o.Name, w.FailurePolicy, w.SideEffects, w.ClientConfig, "mutate")
			}
		}
	}
	sa := rbacv1.Subject{Kind: "ServiceAccount", Name: p.ServiceAccount(), Namespace: p.Namespace()}
	for i, s := range subjects {
		if !slices.Contains(s, sa) || !roles[roleRefs[i]] {
			t.Errorf("a binding of %s to %v: want a role of the manifests bound to %v", roleRefs[i], s, sa)
		}
	}
	if deployment == nil {
		t.Fatal("no Deployment")
	}
	checkDeployment(t, p, deployment)
	wantServices := map[string]int32{p.MetricsService(): 8443}
	if p.Webhooks {
		wantServices[p.WebhookService()] = 443
	}
	for _, s := range services {
		if port, ok := wantServices[s.Name]; !ok || len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Port != port ||
			!selects(s.Spec.Selector, deployment.Spec.Template.Labels) {
			t.Errorf("Service %s: ports %v, selector %v; want port %d selecting the Deployment's pods", s.Name, s.Spec.Ports, s.Spec.Selector, port)
		}
		delete(wantServices, s.Name)
	}
	if len(wantServices) > 0 {
		t.Errorf("missing Services %v", wantServices)
	}
	if p.Webhooks != (len(webhooks) == 2) {
		t.Errorf("%d webhooks with -webhooks=%v", len(webhooks), p.Webhooks)
	}
}

func checkWebhook(t *testing.T, p *project, config string, policy *admissionregistrationv1.FailurePolicyType,
	effects *admissionregistrationv1.SideEffectClass, cc admissionregistrationv1.WebhookClientConfig, verb string) {
	t.Helper()
	if cc.Service == nil || cc.Service.Name != p.WebhookService() || cc.Service.Namespace != p.Namespace() ||
		cc.Service.Path == nil || *cc.Service.Path != p.WebhookPath(verb) {
		t.Errorf("%s calls %+v, want the Service %s/%s at %s", config, cc.Service, p.Namespace(), p.WebhookService(), p.WebhookPath(verb))
	}
	if policy == nil || *policy != admissionregistrationv1.Fail || effects == nil || *effects != admissionregistrationv1.SideEffectClassNone {
		t.Errorf("%s: failurePolicy %v, sideEffects %v; want Fail and None", config, policy, effects)
	}
	if config != p.ValidatingWebhooks() && config != p.MutatingWebhooks() {
		t.Errorf("configuration %s: not a name main.go injects the CA into", config)
	}
}

// checkDeployment checks what README.md says of the Deployment.
func checkDeployment(t *testing.T, p *project, d *appsv1.Deployment) {
	t.Helper()
	pod := d.Spec.Template.Spec
	if d.Name != p.Deployment() || pod.ServiceAccountName != p.ServiceAccount() || len(pod.Containers) != 1 ||
		d.Spec.Selector == nil || !selects(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
		t.Fatalf("Deployment %s runs %d containers as %s, selector %v: want %s, one container, as %s, selecting its pods",
			d.Name, len(pod.Containers), pod.ServiceAccountName, d.Spec.Selector, p.Deployment(), p.ServiceAccount())
	}
	c := pod.Containers[0]
	for _, arg := range []string{"--leader-elect", "--health-probe-bind-address=:8081", "--metrics-bind-address=:8443"} {
		if !slices.Contains(c.Args, arg) {
			t.Errorf("container args %v lack %s", c.Args, arg)
		}
	}
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "POD_NAMESPACE" })
	if i < 0 || c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.FieldRef == nil || c.Env[i].ValueFrom.FieldRef.FieldPath != "metadata.namespace" {
		t.Error("POD_NAMESPACE is not set from the downward API's metadata.namespace")
	}
	for path, probe := range map[string]*corev1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != path || probe.HTTPGet.Port.StrVal != "health" {
			t.Errorf("no probe of %s on the health port", path)
		}
	}
	ports := map[string]int32{}
	for _, port := range c.Ports {
		ports[port.Name] = port.ContainerPort
	}
	if ports["health"] != 8081 || ports["metrics"] != 8443 || p.Webhooks != (ports["webhook-server"] == 9443) {
		t.Errorf("container ports %v: want health 8081, metrics 8443, and webhook-server 9443 with webhooks", ports)
	}
	sc := c.SecurityContext
	if psc := pod.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil ||
		sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil ||
		!slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Error("the pod does not run as the restricted Pod Security Standard requires")
	}
}

// selects reports whether labels has every key and value of selector.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}

func TestNames(t *testing.T) {
	good := project{Module: "example.com/guestbook", Group: "webapp.example.com", Version: "v1", Kind: "Guestbook"}
	for _, tc := range []struct {
		change func(*project)
		flag   string
	}{
		{func(p *project) { p.Module = "" }, "-module"},
		{func(p *project) { p.Module = "example.com/guest book" }, "-module"},
		{func(p *project) { p.Module = "/example.com" }, "-module"},
		{func(p *project) { p.Group = "webapp" }, "-group"},
		{func(p *project) { p.Group = "Webapp.example.com" }, "-group"},
		{func(p *project) { p.Group = "web_app.example.com" }, "-group"},
		{func(p *project) { p.Version = "1" }, "-version"},
		{func(p *project) { p.Version = "V1" }, "-version"},
		{func(p *project) { p.Version = "v0" }, "-version"},
		{func(p *project) { p.Version = "v1.2" }, "-version"},
		{func(p *project) { p.Version = "v1gamma1" }, "-version"},
		{func(p *project) { p.Kind = "guestbook" }, "-kind"},
		{func(p *project) { p.Kind = "Guest_book" }, "-kind"},
		{func(p *project) { p.Kind = "GuestbookList" }, "-kind"},
		{func(p *project) { p.Kind = "" }, "-kind"},
		{func(p *project) { p.Name = "1guestbook" }, "-name"},
		{func(p *project) { p.Name = "Guestbook" }, "-name"},
		{func(p *project) { p.Name = strings.Repeat("g", maxNameLen+1) }, "-name"},
		{func(p *project) { p.Module = "example.com/123" }, "-name"},
	} {
		p := good
		tc.change(&p)
		_, err := newProject(p)
		if err == nil || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%+v: %v, want an error naming %s", p, err, tc.flag)
		}
	}
	if _, err := newProject(good); err != nil {
		t.Errorf("%+v: %v", good, err)
	}
	// Every mistake at once, so that one run shows them all.
	if _, err := newProject(project{Module: "a b", Group: "x", Version: "1", Kind: "k"}); err == nil ||
		!strings.Contains(err.Error(), "-module") || !strings.Contains(err.Error(), "-group") ||
		!strings.Contains(err.Error(), "-version") || !strings.Contains(err.Error(), "-kind") {
		t.Errorf("four bad flags: %v, want each named", err)
	}
}

func TestDerivedNames(t *testing.T) {
	for module, want := range map[string]string{
		"example.com/guestbook":                  "guestbook",
		"example.com/foo/v2":                     "foo",
		"github.com/Org/My_Operator":             "my-operator",
		"example.com/9lives":                     "lives",
		"guestbook":                              "guestbook",
		"example.com/" + strings.Repeat("a", 50): strings.Repeat("a", maxNameLen),
	} {
		if got, err := nameFromModule(module); got != want || err != nil {
			t.Errorf("nameFromModule(%q) = %q, %v; want %q", module, got, err, want)
		}
	}
	for kind, want := range map[string][2]string{
		"Guestbook": {"guestbooks", "Guestbooks"}, "PaymentPolicy": {"paymentpolicies", "PaymentPolicies"},
		"Bus": {"buses", "Buses"}, "Box": {"boxes", "Boxes"}, "Match": {"matches", "Matches"},
		"Key": {"keys", "Keys"}, "URLMap": {"urlmaps", "URLMaps"},
	} {
		if got, gotCamel := plural(kind), pluralCamel(kind); got != want[0] || gotCamel != want[1] {
			t.Errorf("plural(%s) = %s, %s; want %s, %s", kind, got, gotCamel, want[0], want[1])
		}
	}
	for name, want := range map[string]string{
		"Guestbook": "guestbook", "URLMap": "urlMap", "DNS": "dns", "PaymentPolicies": "paymentPolicies",
		"Type": "typeObj", "Client": "clientObj", "Ready": "readyObj", "Map": "mapObj",
	} {
		if got := variable(name); got != want {
			t.Errorf("variable(%s) = %s, want %s", name, got, want)
		}
	}
	for gv, want := range map[[2]string]string{
		{"webapp.example.com", "v1"}: "webappv1", {"my-app.example.io", "v1beta1"}: "myappv1beta1",
		{"1app.example.io", "v1"}: "api1appv1",
	} {
		if got := apiAlias(gv[0], gv[1]); got != want {
			t.Errorf("apiAlias(%s, %s) = %s, want %s", gv[0], gv[1], got, want)
		}
	}
}

func TestReflow(t *testing.T) {
	long := "// " + strings.Repeat("word ", 30)
	src := strings.Join([]string{
		long, "//", "//\tcode stays " + strings.Repeat("x", 90),
		"// +kubebuilder:rbac:groups=" + strings.Repeat("g", 90),
		"//go:generate " + strings.Repeat("y", 90),
		"\t" + long,
		"// short", "// lines stay",
	}, "\n")
	got := strings.Split(reflow(src), "\n")
	for _, l := range got {
		if len(strings.ReplaceAll(l, "\t", "    ")) > commentWidth && (strings.HasPrefix(l, "// w") || strings.HasPrefix(l, "\t// w")) {
			t.Errorf("line longer than %d: %q", commentWidth, l)
		}
	}
	for _, kept := range []string{"//\tcode stays ", "// +kubebuilder:rbac:groups=", "//go:generate ", "// short\n// lines stay"} {
		if !strings.Contains(reflow(src), kept) {
			t.Errorf("reflow changed %q:\n%s", kept, reflow(src))
		}
	}
	if words := strings.Count(reflow(src), "word"); words != 60 {
		t.Errorf("reflow kept %d words of 60", words)
	}
}

// TestRefusals checks what run refuses before writing anything: a DIR
// that is not empty, missing flags, bad names.
func TestRefusals(t *testing.T) {
	full := []string{"-module", "example.com/guestbook", "-group", "webapp.example.com", "-kind", "Guestbook", "-no-generate", "-steady", "../.."}

	dir := t.TempDir()
	keep := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(append(full, dir), &out)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a non-empty DIR: %v, want it refused", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a refused DIR now holds %d files", len(entries))
	}

	missing := filepath.Join(t.TempDir(), "new")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-group", "webapp.example.com", "-kind", "Guestbook", missing}, "-module is required"},
		{[]string{"-module", "example.com/g", "-kind", "Guestbook", missing}, "-group is required"},
		{[]string{"-module", "example.com/g", "-group", "webapp.example.com", missing}, "-kind is required"},
		{[]string{"-module", "example.com/g", "-group", "webapp.example.com", "-kind", "guestbook", missing}, "-kind \"guestbook\""},
		{[]string{"-module", "example.com/g", "-group", "webapp.example.com", "-kind", "Guestbook", "-steady", t.TempDir(), missing}, "-steady"},
		{append(slices.Clone(full), missing, "extra"), "one argument"},
	} {
		out.Reset()
		if err := run(tc.args, &out); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %q: %v, want an error containing %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(missing); err == nil {
			t.Fatalf("run %q created DIR", tc.args)
		}
	}
}

// TestFindSteady checks that -steady names a checkout, and that without it
// a test binary, built from this checkout, finds it.
func TestFindSteady(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"../..", ""} {
		src, err := findSteady(dir)
		if err != nil || src.dir != root || src.version != unpublished {
			t.Errorf("findSteady(%q) = %+v, %v; want the checkout %s", dir, src, err, root)
		}
	}
	if _, err := findSteady("."); err == nil || !strings.Contains(err.Error(), "-steady") {
		t.Errorf("findSteady of a directory without steady's go.mod: %v, want an error naming -steady", err)
	}
}
