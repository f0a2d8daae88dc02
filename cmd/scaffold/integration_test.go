package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/steadyctl/steady/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The projects the integration tests generate: the example
// without webhooks, and one with webhooks whose names stress the derived
// ones (a module path of three elements, a -ies plural, an alpha version).
var (
	plainProject = project{Module: "example.com/guestbook", Group: "webapp.example.com", Version: "v1", Kind: "Guestbook"}
	hooksProject = project{Module: "example.com/shop/payment-operator", Group: "payments.shop.example.org",
		Version: "v1alpha1", Kind: "PaymentPolicy", Webhooks: true}
)

// TestGeneratedProjects does what a new user does: it runs the scaffold,
// then in the project it made go build, go vet and go test (against a
// control plane of its own, from testenv's cached binaries), and applies
// its manifests to this test's control plane with a server-side dry run.
// Then it runs the project's binary as its manifests' service account
// (runOperator): the one without webhooks until it has elected itself and
// reconciled, the one with webhooks until it has elected itself and
// injected its webhook certificates. Each project is generated once and
// shared by its subtests; the times of the steps are logged.
func TestGeneratedProjects(t *testing.T) {
	if testing.Short() {
		t.Skip("generates, builds and tests projects, and needs a control plane; skipped under -short")
	}
	for _, tc := range []struct {
		name string
		p    project
	}{{"plain", plainProject}, {"webhooks", hooksProject}} {
		t.Run(tc.name, func(t *testing.T) {
			p, dir := generateProject(t, tc.p)
			bin := filepath.Join(t.TempDir(), "bin")
			ok := t.Run("build", func(t *testing.T) {
				// -o a directory keeps the command's binary (named after
				// the module path's last element), for run; go build
				// ./... alone would discard it.
				timed(t, "go build ./...", func() { goIn(t, dir, "build", "-o", bin+string(filepath.Separator), "./...") })
				// The README's local control plane, from the project's
				// own module graph.
				goIn(t, dir, "build", "-o", os.DevNull, "github.com/steadyctl/steady/cmd/testenv")
			})
			t.Run("vet", func(t *testing.T) { timed(t, "go vet ./...", func() { goIn(t, dir, "vet", "./...") }) })
			t.Run("test", func(t *testing.T) { timed(t, "go test ./...", func() { goIn(t, dir, "test", "-count=1", "./...") }) })
			t.Run("dry-run", func(t *testing.T) { dryRunManifests(t, p, dir) })
			if !ok {
				return
			}
			t.Run("run", func(t *testing.T) {
				checks := reconciled(p)
				if p.Webhooks {
					if l, err := net.Listen("tcp", ":9443"); err != nil {
						t.Skipf("the webhook server's port is taken: %v", err)
					} else {
						l.Close()
					}
					checks = webhookCertificatesInjected(p)
				}
				binary := filepath.Join(bin, path.Base(p.Module))
				if _, err := os.Stat(binary); err != nil { // build did not run (go test -run)
					goIn(t, dir, "build", "-o", binary, ".")
				}
				runOperator(t, p, dir, binary, checks)
			})
		})
	}
}

// TestGeneratedNames generates the unit tests' other name sets (a kind
// that is an initialism, a Go keyword, the name of a package the
// generated code imports) and type-checks them, their tests included,
// with go vet: names that parse can still clash.
func TestGeneratedNames(t *testing.T) {
	if testing.Short() {
		t.Skip("generates projects with controller-gen; skipped under -short")
	}
	for _, set := range nameSets {
		if set.Kind == plainProject.Kind || set.Kind == hooksProject.Kind {
			continue // TestGeneratedProjects builds those
		}
		t.Run(set.Kind, func(t *testing.T) {
			_, dir := generateProject(t, set)
			goIn(t, dir, "vet", "./...")
		})
	}
}

// generateProject runs the scaffold for p into a new directory, with
// -steady pointing at this checkout, and returns the project and the
// directory. It fails t if the scaffold fails.
func generateProject(t *testing.T, p project) (*project, string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), p.Name)
	args := []string{"-module", p.Module, "-group", p.Group, "-version", p.Version, "-kind", p.Kind, "-steady", root}
	if p.Webhooks {
		args = append(args, "-webhooks")
	}
	var out bytes.Buffer
	start := time.Now()
	if err := run(append(args, dir), &out); err != nil {
		t.Fatalf("scaffold %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	t.Logf("scaffold (go mod tidy, controller-gen): %v", time.Since(start).Round(100*time.Millisecond))
	proj, err := newProject(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{proj.CRDFile(), "config/rbac/role.yaml", "api/" + p.Version + "/zz_generated.deepcopy.go", "go.sum"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("the scaffold did not make %s: %v\n%s", f, err, out.String())
		}
	}
	// controller-gen's names are the ones the templates derived.
	crds, err := readManifests(dir, "config/crd")
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) != 1 || crds[0].obj.GetName() != proj.CRDName() {
		t.Fatalf("config/crd holds %v, want the CRD %s", crds, proj.CRDName())
	}
	roles, err := readManifests(dir, "config/rbac/role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(roles) != 1 || roles[0].obj.GetName() != proj.ManagerRole() {
		t.Fatalf("config/rbac/role.yaml holds %v, want the ClusterRole %s", roles, proj.ManagerRole())
	}
	return proj, dir
}

// goIn runs the go command with args in dir, failing t with its output if
// it fails. It inherits the environment: the Go caches, and
// $STEADY_ASSETS, $KUBEBUILDER_ASSETS or $STEADY_CACHE_DIR, so that the
// project's tests find the control plane binaries this test uses.
func goIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// timed runs f and logs how long it took.
func timed(t *testing.T, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	t.Logf("%s: %v", what, time.Since(start).Round(100*time.Millisecond))
}

// syncBuffer is a bytes.Buffer that a process's output and the test can
// use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
