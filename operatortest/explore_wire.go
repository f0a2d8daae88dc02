package operatortest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/steadyctl/steady/internal/observe"
)

// otherWriter is the annotation the other writer of a FaultConflict sets.
const otherWriter = "explore.steady.dev/other-writer"

// Timings of the perturbations.
const (
	// rywBound caps the controllers' read-your-writes hold in explored
	// runs, so that a held watch outlasts it in little time.
	rywBound = time.Second
	// staleHold is how long FaultStale holds a watch: well beyond
	// rywBound, so the controller acts on the cache that is behind even on
	// a busy machine.
	staleHold = 2*rywBound + 500*time.Millisecond
	// refuseFor is how long FaultRestart's API server stays away.
	refuseFor = 500 * time.Millisecond
)

// errCrashed is what a crashed manager's requests fail with.
var errCrashed = errors.New("operatortest: this manager has crashed (an explored fault): nothing it sends reaches the API server")

// runState is what one run's transports share: the log of writes, the
// perturbation and how far it has gone, and the watches it may hold.
type runState struct {
	p          *perturbation // nil in the reference run
	interloper *http.Client  // the other writer of FaultConflict, also reads the end state
	host       string

	mu          sync.Mutex
	writes      []*write
	landed      map[string]int    // successful writes per id base, for the ids
	generated   map[string]string // the generateName of each object created with one, by target.key
	lastWrite   time.Time         // of the manager's last write
	gen         int               // the manager generation that may talk; older ones have crashed
	kinds       map[string]bool
	watches     map[string][]*watchBody // open watches by kind
	held        map[string]bool
	expire      map[string]bool // kinds whose watches are answered 410 until they relist
	refuseUntil time.Time
	triggered   bool
	interfered  *interference
	interloping bool          // the other writer's change is in flight
	notes       []string      // what the perturbation did, in words
	crashed     chan struct{} // a crash to act on (buffered 1)
	untilLanded chan struct{} // closed when p.until has landed
	untilClosed bool
	holdTimer   *time.Timer
	// unobservedDone: FaultUnobserved's watches have been cut.
	unobservedDone bool
	over           bool // the end state has been read: later writes are clean-ups
}

// end marks the end of the run proper: later writes are the clean-ups'.
func (s *runState) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.over = true
}

// interference is the object FaultConflict's other writer changed.
type interference struct {
	target target
	uid    string
	before *write
}

func newRunState(p *perturbation, interloper *http.Client, host string) *runState {
	return &runState{
		p: p, interloper: interloper, host: host,
		landed: map[string]int{}, generated: map[string]string{}, kinds: map[string]bool{}, watches: map[string][]*watchBody{},
		held: map[string]bool{}, expire: map[string]bool{}, gen: 1,
		crashed: make(chan struct{}, 1), untilLanded: make(chan struct{}),
	}
}

func (s *runState) note(format string, args ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

// transport returns the WrapTransport of the manager of generation gen,
// or of the test when gen is 0.
func (s *runState) transport(gen int) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper { return &explorerRT{s: s, gen: gen, next: next} }
}

type explorerRT struct {
	s    *runState
	gen  int // 0: the test's
	next http.RoundTripper
}

func (e *explorerRT) RoundTrip(req *http.Request) (*http.Response, error) {
	s, byTest := e.s, e.gen == 0
	if !byTest {
		if err := s.admit(e.gen); err != nil {
			return nil, err
		}
	}
	t, ok := parsePath(req.URL.Path)
	if !ok {
		return e.next.RoundTrip(req)
	}
	if !byTest && isWatch(req) {
		return s.watch(e, req, t)
	}
	verb := verbOf(req)
	if verb == "" || unexplored(t) {
		if !byTest && req.Method == http.MethodGet && t.name == "" {
			s.listed(t.kind())
		}
		return e.next.RoundTrip(req)
	}
	w, err := s.begin(req, t, verb, byTest)
	if err != nil {
		return nil, err
	}
	if resp := s.before(req, w); resp != nil {
		return resp, nil
	}
	resp, err := e.next.RoundTrip(req)
	return s.after(req, w, resp, err, e.gen)
}

// admit fails the requests of a crashed manager, and all of them while
// FaultRestart's API server is away.
func (s *runState) admit(gen int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen < s.gen {
		return errCrashed
	}
	if time.Now().Before(s.refuseUntil) {
		return errors.New("operatortest: connection refused: the API server is restarting (an explored fault)")
	}
	return nil
}

// begin logs a write as it is sent, naming it by its object.
func (s *runState) begin(req *http.Request, t target, verb string, byTest bool) (*write, error) {
	w := &write{byTest: byTest, verb: verb, target: t}
	w.by, w.attributed = observe.ReconcileFrom(req.Context())
	if verb == "create" && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("operatortest: reading the body of a create: %w", err)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		if n, err := nameOf(req.Header.Get("Content-Type"), body); err == nil {
			w.target.name, w.generateName = n.Name, n.GenerateName
			if n.Name != "" {
				w.generateName = ""
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if g, ok := s.generated[w.target.key()]; ok {
		w.generateName = g // a later write of a generated object
	}
	w.id = w.idBase() + countSuffix(s.landed[w.idBase()]+1)
	w.late = s.over
	w.seq = len(s.writes) + 1
	s.writes = append(s.writes, w)
	if !byTest {
		s.lastWrite = time.Now()
	}
	return w, nil
}

// due reports whether the perturbation is keyed to w and has not happened.
func (s *runState) due(w *write, id string) bool {
	return s.p != nil && !s.triggered && id == w.id && id != ""
}

// before acts on a write about to be sent: it may answer it instead of
// the server, change its object first, or start holding a watch.
func (s *runState) before(req *http.Request, w *write) *http.Response {
	resp, conflict := s.perturb(req, w)
	if conflict {
		// Without s.mu, which every request of the manager takes; w itself
		// is sent only once the other writer's change has landed.
		uid, err := s.interlope(req.Context(), w.target)
		s.interfere(w, uid, err)
	}
	return resp
}

// perturb is before under s.mu; conflict means FaultConflict is due and
// its other writer must change w's object now.
func (s *runState) perturb(req *http.Request, w *write) (resp *http.Response, conflict bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil || !s.due(w, s.p.atID()) {
		return nil, false
	}
	p := s.p
	switch p.fault {
	case FaultError:
		s.triggered = true
		return statusResponse(req, http.StatusInternalServerError, "InternalError", "Internal error occurred: an explored fault: the write was not applied", ""), false
	case FaultThrottle:
		s.triggered = true
		return statusResponse(req, http.StatusTooManyRequests, "TooManyRequests", "the server has received too many requests and has asked us to try again later (an explored fault)", "1"), false
	case FaultConflict:
		s.triggered = true // no other write is due from now on
		s.interloping = true
		return nil, true
	case FaultStale:
		s.triggered = true
		s.hold(p.kind, true)
		s.holdTimer = time.AfterFunc(staleHold, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.hold(p.kind, false)
			s.holdTimer = nil
		})
	case FaultUnobserved:
		s.triggered = true
		s.hold(p.kind, true)
		// If the next write waits for the controllers to see this one,
		// the cut comes after staleHold instead: a relist all the same.
		s.holdTimer = time.AfterFunc(staleHold, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if !s.unobservedDone {
				s.note("write %d did not come within %v; the watch was cut then", p.until.seq, staleHold)
				s.endUnobserved()
			}
		})
	}
	return nil, false
}

// interfere records what FaultConflict's other writer did to w's object.
func (s *runState) interfere(w *write, uid string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interloping = false
	if err != nil {
		s.note("the other writer could not change %s: %v", w.target.key(), err)
		return
	}
	s.interfered = &interference{target: w.target, uid: uid, before: w}
}

// after acts on a write's answer: a crash, a lost answer, the end of a
// hold, a restart of the API server.
func (s *runState) after(req *http.Request, w *write, resp *http.Response, err error, gen int) (*http.Response, error) {
	ok := err == nil && resp.StatusCode < 300
	if ok && w.verb == "create" && w.target.name == "" {
		resp.Body, w.target.name = createdName(resp)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		w.code = resp.StatusCode
	}
	if !ok {
		return resp, err
	}
	s.landed[w.idBase()]++
	if w.verb == "create" && w.generateName != "" {
		s.generated[w.target.key()] = w.generateName
	}
	if s.p == nil {
		return resp, err
	}
	p := s.p
	if s.due(w, p.atID()) {
		switch p.fault {
		case FaultCrash, FaultDown:
			s.triggered = true
			s.crash(gen)
		case FaultTimeout:
			s.triggered = true
			resp.Body.Close()
			return statusResponse(req, http.StatusGatewayTimeout, "Timeout", "Timeout: request did not complete within the allotted timeout (an explored fault: the write was applied)", ""), nil
		case FaultRestart:
			s.triggered = true
			s.refuseUntil = time.Now().Add(refuseFor)
			s.cutAll()
		}
	}
	if p.until != nil && p.until.id == w.id && s.triggered && !s.untilClosed {
		s.untilClosed = true
		close(s.untilLanded)
		if p.fault == FaultUnobserved && !s.unobservedDone {
			s.endUnobserved()
		}
	}
	return resp, err
}

// endUnobserved cuts the held watches of FaultUnobserved's kind, and
// answers the next ones 410 Gone until the informer relists; s.mu is held.
func (s *runState) endUnobserved() {
	s.unobservedDone = true
	s.expire[s.p.kind] = true
	s.hold(s.p.kind, false)
	for _, b := range s.watches[s.p.kind] {
		b.cut()
	}
}

// crash kills the manager of generation gen: from now on its requests
// fail and its watches end, and the run starts a fresh one.
func (s *runState) crash(gen int) {
	if gen < s.gen {
		return
	}
	s.gen = gen + 1
	s.cutAll()
	select {
	case s.crashed <- struct{}{}:
	default:
	}
}

// cutAll ends every open watch.
func (s *runState) cutAll() {
	for _, bs := range s.watches {
		for _, b := range bs {
			b.cut()
		}
	}
}

// hold starts or ends holding back the watches of kind; s.mu is held.
func (s *runState) hold(kind string, on bool) {
	s.held[kind] = on
	for _, b := range s.watches[kind] {
		b.setHeld(on)
	}
}

// listed notes that the manager lists kind: a relist ends the 410s.
func (s *runState) listed(kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.expire, kind)
}

// watch opens a watch for the manager, which the perturbation may hold
// back or cut, or answers 410 Gone when the kind must relist.
func (s *runState) watch(e *explorerRT, req *http.Request, t target) (*http.Response, error) {
	kind := t.kind()
	s.mu.Lock()
	s.kinds[kind] = true
	if req.URL.Query().Get("sendInitialEvents") == "true" {
		delete(s.expire, kind) // a streamed list: the relist
	}
	expired := s.expire[kind]
	s.mu.Unlock()
	if expired {
		return statusResponse(req, http.StatusGone, "Expired", "too old resource version (an explored fault: the events since were compacted)", ""), nil
	}
	resp, err := e.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	b := newWatchBody(resp.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.gen < s.gen { // crashed while it opened
		b.cut()
	}
	b.setHeld(s.held[kind])
	s.watches[kind] = append(s.watches[kind], b)
	resp.Body = b
	return resp, nil
}

// managerWrites returns how many writes the manager has sent.
func (s *runState) managerWrites() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.writes {
		if !w.byTest {
			n++
		}
	}
	return n
}

// busy reports a perturbation still under way: a watch held, a crash not
// yet acted on, the API server away, the other writer's change in flight.
func (s *runState) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interloping {
		return true
	}
	for _, h := range s.held {
		if h {
			return true
		}
	}
	return len(s.crashed) > 0 || time.Now().Before(s.refuseUntil)
}

// quietFor returns how long the manager has not written.
func (s *runState) quietFor() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Since(s.lastWrite)
}

// log returns the writes so far.
func (s *runState) log() []*write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*write(nil), s.writes...)
}

// createdName reads the name the server gave a created object, and
// returns a body that still reads the whole answer.
func createdName(resp *http.Response) (io.ReadCloser, string) {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	rc := io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return rc, ""
	}
	n, _ := nameOf(resp.Header.Get("Content-Type"), body)
	return rc, n.Name
}

// statusResponse is an answer of the API server's form: a Status in JSON.
func statusResponse(req *http.Request, code int, reason, msg, retryAfter string) *http.Response {
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
	h := http.Header{"Content-Type": {"application/json"}}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return &http.Response{
		Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), StatusCode: code,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}
}

// interlope is FaultConflict's other writer: it sets an annotation on the
// object the controller is about to update. s.mu must not be held: the
// manager's other requests go on meanwhile.
func (s *runState) interlope(ctx context.Context, t target) (string, error) {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"changed"}}}`, otherWriter)
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, s.host+t.objectPath(), strings.NewReader(patch))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/merge-patch+json")
	req.Header.Set("Accept", "application/json")
	obj, err := do(s.interloper, req)
	if err != nil {
		return "", err
	}
	uid, _ := metaString(obj, "uid")
	return uid, nil
}

// kindsWatched returns the kinds the manager has watched.
func (s *runState) kindsWatched() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.kinds)
}

// generation returns the generation of the manager that may talk.
func (s *runState) generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// outcome returns whether the perturbation happened, what it did, and the
// object the other writer changed.
func (s *runState) outcome() (bool, []string, *interference) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holdTimer != nil {
		s.holdTimer.Stop()
	}
	return s.triggered, append([]string(nil), s.notes...), s.interfered
}
