package operatortest

import (
	"fmt"
	"slices"
	"strings"
)

// Fault is a class of perturbation Explore makes (see the package
// documentation, "Exploring faults").
type Fault string

// The classes of perturbation, each made at places chosen from the
// unperturbed run.
const (
	// FaultCrash kills the manager right after one of its writes has
	// landed, as a crash would (no clean shutdown, no lease released),
	// and starts a fresh one: the intermediate state between two writes.
	FaultCrash Fault = "crash"
	// FaultDown kills the manager after its last write before one of the
	// test's writes, and starts a fresh one only once that write has
	// landed: a change the controllers never see happen.
	FaultDown Fault = "down"
	// FaultStale holds back the manager's watches of a kind from just
	// before one of its writes of that kind, for longer than
	// read-your-writes waits: decisions taken from a cache that is behind.
	FaultStale Fault = "stale"
	// FaultUnobserved holds back the watches of an object's kind from one
	// of its writes until the next one has landed, then cuts them and
	// answers 410 Gone, as after a compaction: the informer relists, and
	// the version in between is never delivered.
	FaultUnobserved Fault = "unobserved"
	// FaultConflict has another writer set an annotation on an object
	// just before the manager updates or patches it: the update must
	// conflict, or keep the other writer's change.
	FaultConflict Fault = "conflict"
	// FaultError answers one of the manager's writes with 500, unapplied.
	FaultError Fault = "error"
	// FaultTimeout applies one of the manager's writes and answers it with
	// 504 Timeout, as when the answer is lost: the write may be retried
	// onto its own result.
	FaultTimeout Fault = "timeout"
	// FaultThrottle answers the first write of each verb and kind with
	// 429 Too Many Requests and Retry-After.
	FaultThrottle Fault = "throttle"
	// FaultRestart takes the API server away for a moment as one of the
	// test's writes lands: every watch is cut and new requests are
	// refused, then the manager reconnects.
	FaultRestart Fault = "restart"
)

// Faults lists every class, in the order Explore runs them.
var Faults = []Fault{FaultCrash, FaultDown, FaultStale, FaultUnobserved, FaultConflict, FaultError, FaultTimeout, FaultThrottle, FaultRestart}

// A perturbation is one fault at one place of the unperturbed run.
type perturbation struct {
	fault Fault
	at    *write // the write it is keyed to, in the reference run
	until *write // FaultDown, FaultUnobserved: the write that ends it
	kind  string // FaultStale, FaultUnobserved: whose watches are held
	of    int    // how many writes the reference run sent
}

func (p *perturbation) atID() string { return p.at.id }

// name is the subtest's name, which replays the perturbation with go test
// -run: the fault and the write's id, stable across runs.
func (p *perturbation) name() string {
	n := string(p.fault) + "@" + p.at.id
	if p.until != nil && p.fault == FaultDown {
		n += ".." + p.until.id
	}
	return n
}

// describe says what the perturbation does, in words.
func (p *perturbation) describe() string {
	at := fmt.Sprintf("write %d of %d (%s)", p.at.seq, p.of, p.at.describe())
	switch p.fault {
	case FaultCrash:
		return "crashed the manager right after " + at + "; a fresh manager started at once"
	case FaultDown:
		return fmt.Sprintf("crashed the manager right after %s; a fresh one started only after write %d (%s) had landed", at, p.until.seq, p.until.describe())
	case FaultStale:
		return fmt.Sprintf("held back the manager's %s watch from just before %s for %v", p.kind, at, staleHold)
	case FaultUnobserved:
		return fmt.Sprintf("held back the manager's %s watch from just before %s until write %d (%s) had landed, then cut it and answered 410 Gone: the informer relisted without seeing the version in between", p.kind, at, p.until.seq, p.until.describe())
	case FaultConflict:
		return fmt.Sprintf("another writer set annotation %s on the object just before %s", otherWriter, at)
	case FaultError:
		return "answered " + at + " with 500 Internal Server Error, unapplied"
	case FaultTimeout:
		return "applied " + at + " and answered it with 504 Timeout"
	case FaultThrottle:
		return "answered " + at + " with 429 Too Many Requests, Retry-After 1s"
	case FaultRestart:
		return fmt.Sprintf("took the API server away for %v as %s landed: every watch cut, new requests refused", refuseFor, at)
	}
	return string(p.fault) + " at " + at
}

// plan chooses the perturbations from the unperturbed run's writes and the
// kinds its manager watched, in the order of Faults.
func plan(ref []*write, watched map[string]bool, only map[Fault]bool) []*perturbation {
	var mgr, steps []*write
	ref = slices.DeleteFunc(slices.Clone(ref), func(w *write) bool { return w.late }) // clean-ups
	for _, w := range ref {
		if w.code >= 300 || w.code == 0 {
			continue // a write that failed is retried under the same id
		}
		if w.byTest {
			steps = append(steps, w)
		} else {
			mgr = append(mgr, w)
		}
	}
	byFault := map[Fault][]*perturbation{}
	add := func(p *perturbation) {
		p.of = len(ref)
		byFault[p.fault] = append(byFault[p.fault], p)
	}
	firstOf := map[string]bool{}
	for _, w := range mgr {
		add(&perturbation{fault: FaultCrash, at: w})
		if watched[w.target.kind()] && w.verb != "delete" {
			add(&perturbation{fault: FaultStale, at: w, kind: w.target.kind()})
		}
		if (w.verb == "update" || w.verb == "patch") && w.target.sub == "" {
			add(&perturbation{fault: FaultConflict, at: w})
		}
		add(&perturbation{fault: FaultError, at: w})
		add(&perturbation{fault: FaultTimeout, at: w})
		if k := w.verb + " " + w.target.kind(); !firstOf[k] {
			firstOf[k] = true
			add(&perturbation{fault: FaultThrottle, at: w})
		}
	}
	for _, s := range steps {
		var last *write
		for _, w := range mgr {
			if w.seq < s.seq {
				last = w
			}
		}
		if last != nil {
			add(&perturbation{fault: FaultDown, at: last, until: s})
			add(&perturbation{fault: FaultRestart, at: s})
		}
	}
	// Unobserved: each write of an object whose kind the manager watches,
	// followed by another write of the same object with no write of the
	// manager's in between: a version that a controller need not react to
	// before the next comes.
	next := map[string]*write{}
	var mgrAfter *write // the manager's first write after the one at hand
	for i := len(ref) - 1; i >= 0; i-- {
		w := ref[i]
		if w.code >= 300 || w.code == 0 {
			continue
		}
		k := w.target.kind() + " " + w.target.namespace + "/" + w.target.name
		n := next[k]
		if n != nil && watched[w.target.kind()] && w.target.name != "" && (mgrAfter == nil || mgrAfter.seq >= n.seq) {
			add(&perturbation{fault: FaultUnobserved, at: w, until: n, kind: w.target.kind()})
		}
		next[k] = w
		if !w.byTest {
			mgrAfter = w
		}
	}
	var out []*perturbation
	for _, f := range Faults {
		if only != nil && !only[f] {
			continue
		}
		ps := byFault[f]
		if f == FaultUnobserved { // built backwards
			for i, j := 0, len(ps)-1; i < j; i, j = i+1, j-1 {
				ps[i], ps[j] = ps[j], ps[i]
			}
		}
		out = append(out, ps...)
	}
	return dedupe(out)
}

// dedupe drops perturbations whose names repeat, keeping the first.
func dedupe(ps []*perturbation) []*perturbation {
	seen := map[string]bool{}
	out := ps[:0]
	for _, p := range ps {
		if n := p.name(); !seen[n] {
			seen[n] = true
			out = append(out, p)
		}
	}
	return out
}

// subtestName is what go test calls a subtest named n (spaces become
// underscores), so that a replay pattern matches it.
func subtestName(n string) string { return strings.ReplaceAll(n, " ", "_") }
