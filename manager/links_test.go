package manager_test

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// heavy are the packages a manager must not link unless the operator's own
// code does: client-go's typed clientset and its scheme of every built-in
// group (registered at start, several MiB of binary and heap), the
// client-go machinery that imports them, and the record package with the
// strategic merge patch and OpenAPI models it brings.
var heavy = regexp.MustCompile(`^(k8s\.io/client-go/(kubernetes($|/)|informers($|/)|listers/|applyconfigurations/|tools/(leaderelection|events|record)($|/))|k8s\.io/apimachinery/pkg/util/strategicpatch$|k8s\.io/kube-openapi/pkg/(validation|schemaconv|util/proto)($|/))`)

// TestManagerLinksNoTypedClientset lists what package manager links, so a
// change that brings client-go's clientset back fails here rather than in
// the end-to-end benchmark's memory.
func TestManagerLinksNoTypedClientset(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/steadyctl/steady/manager").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	var linked []string
	for _, p := range strings.Fields(string(out)) {
		if heavy.MatchString(p) {
			linked = append(linked, p)
		}
	}
	if len(linked) > 0 {
		t.Errorf("package manager links %d package(s) of client-go's clientset or what imports it, first %q", len(linked), linked[:min(5, len(linked))])
	}
}
