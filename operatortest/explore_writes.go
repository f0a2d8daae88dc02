package operatortest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/steadyctl/steady/internal/observe"
)

// A write is one create, update, patch or delete seen on the wire in a
// run, made by the manager (its controllers, finalizers, webhooks'
// certificates: everything but its events and leases) or by the test.
type write struct {
	seq          int // from 1, in the order the writes were sent
	byTest       bool
	verb         string // create, update, patch, delete
	target       target
	generateName string
	id           string // stable across runs: verb:resource:name[:n]
	by           observe.Reconcile
	attributed   bool // by is known
	code         int  // the answer's status; 0 until it came
	late         bool // sent after the run's end state was read: a clean-up's
}

// target is what a request's URL path names.
type target struct {
	group, version, resource string
	namespace, name          string
	sub                      string // subresource: status, scale…; "" for the object
}

// parsePath reads /api/v1/namespaces/ns/configmaps/name/status and the
// like. Cluster-scoped paths have no namespace; namespaces themselves are
// the resource of /api/v1/namespaces/name[/status|/finalize].
func parsePath(p string) (target, bool) {
	seg := strings.Split(strings.Trim(p, "/"), "/")
	var t target
	switch {
	case len(seg) >= 3 && seg[0] == "api":
		t.version, seg = seg[1], seg[2:]
	case len(seg) >= 4 && seg[0] == "apis":
		t.group, t.version, seg = seg[1], seg[2], seg[3:]
	default:
		return t, false
	}
	if len(seg) >= 3 && seg[0] == "namespaces" && (len(seg) > 3 || (seg[2] != "status" && seg[2] != "finalize")) {
		t.namespace, seg = seg[1], seg[2:]
	}
	switch len(seg) {
	case 3:
		t.sub = seg[2]
		fallthrough
	case 2:
		t.name = seg[1]
		fallthrough
	case 1:
		t.resource = seg[0]
	default:
		return t, false
	}
	return t, t.resource != ""
}

// kind is the resource with its group, as kubectl writes it:
// "configmaps", "foos.example.com".
func (t target) kind() string {
	if t.group == "" {
		return t.resource
	}
	return t.resource + "." + t.group
}

// objectPath is the URL path of the object itself.
func (t target) objectPath() string {
	p := "/apis/" + t.group + "/" + t.version
	if t.group == "" {
		p = "/api/" + t.version
	}
	if t.namespace != "" {
		p += "/namespaces/" + t.namespace
	}
	return p + "/" + t.resource + "/" + t.name
}

// key names an object within a run.
func (t target) key() string { return t.kind() + " " + t.namespace + "/" + t.name }

// isWatch reports whether r opens a watch.
func isWatch(r *http.Request) bool {
	v := r.URL.Query().Get("watch")
	return r.Method == http.MethodGet && (v == "true" || v == "1")
}

// verbOf returns the write a request is, or "" for a read.
func verbOf(r *http.Request) string {
	switch r.Method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return ""
}

// unexplored reports resources whose writes are not the controllers'
// decisions: events and leases are written in the background, reviews
// store nothing.
func unexplored(t target) bool {
	switch {
	case t.resource == "events", t.resource == "leases", strings.HasSuffix(t.resource, "reviews"):
		return true
	}
	return false
}

// idOf names a write so that the same write of another run of the same
// test gets the same id: "test-" for the test's writes, the verb, the
// kind (and subresource), the name (a generateName and "*" for generated
// ones, which differ from run to run) and, from the second such write on,
// its count. The test and the manager count apart, since their writes
// race.
func idOf(byTest bool, verb string, t target, generateName string, count int) string {
	k := t.kind()
	if t.sub != "" {
		k += "/" + t.sub
	}
	name := t.name
	if generateName != "" {
		name = generateName + "*"
	}
	id := verb + ":" + k + ":" + name
	if byTest {
		id = "test-" + id
	}
	return id + countSuffix(count)
}

// countSuffix is the ":n" of an id, from n = 2 on.
func countSuffix(n int) string {
	if n > 1 {
		return fmt.Sprintf(":%d", n)
	}
	return ""
}

// idBase is w's id without its count.
func (w *write) idBase() string { return idOf(w.byTest, w.verb, w.target, w.generateName, 1) }

// describe says what a write was, for a person: `create configmaps
// "p-child" (write 3), by controller "parent" reconciling ns/p`.
func (w *write) describe() string {
	what := w.verb + " " + w.target.kind()
	if w.target.sub != "" {
		what = w.verb + " the " + w.target.sub + " of " + w.target.kind()
	}
	name := w.target.name
	if name == "" {
		name = w.generateName + "…"
	}
	s := fmt.Sprintf("%s %q", what, name)
	switch {
	case w.byTest:
		s += " by the test"
	case w.attributed:
		s += fmt.Sprintf(" by controller %q reconciling %s", w.by.Controller, w.by.Request)
	default:
		s += " by the manager outside a reconcile"
	}
	return s
}
