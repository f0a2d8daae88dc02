package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/steadyctl/steady/reflector"
	"github.com/steadyctl/steady/testenv"
)

// TestMain checks that the example leaves no goroutine behind; the tests
// share one local control plane, started as the story's is: with the
// ShardedListAndWatch feature gate on.
func TestMain(m *testing.M) { testenv.Main(m, localControlPlane...) }

// TestSharded runs the story against a local control plane and checks its
// summary: every ConfigMap reconciled and annotated by its owner, about a
// third each with three replicas, filtered by the API server, the killed
// replica's objects taken over within the lease duration and a bound, about
// a third moved to the replica that joined the two left and none between
// the others,
// and no key reconciled by two replicas at once.
func TestSharded(t *testing.T) {
	var out bytes.Buffer
	s, err := run(context.Background(), testenv.Shared(t).Config, &out, storyObjects)
	if err != nil {
		t.Fatalf("%v\noutput:\n%s", err, out.String())
	}
	report := out.String() + s.String()
	t.Log(report)
	if s.Reconciled != s.Objects || s.Annotated != s.Objects {
		t.Errorf("%d of %d ConfigMaps reconciled, %d annotated by their owner: want all", s.Reconciled, s.Objects, s.Annotated)
	}
	if len(s.Shares) != 3 {
		t.Fatalf("%d shares, want three replicas'", len(s.Shares))
	}
	cached := 0
	for _, sh := range s.Shares {
		cached += sh.Cached
		// 300 objects over three replicas: a third is 100, the ring's
		// spread and the uids' chance make ±30 rare.
		if sh.Cached < s.Objects*20/100 || sh.Cached > s.Objects*47/100 {
			t.Errorf("%s caches %d of %d ConfigMaps: outside 20%%-47%%", sh.Replica, sh.Cached, s.Objects)
		}
		if sh.Writes != int64(sh.Cached) {
			t.Errorf("%s wrote %d annotations for the %d ConfigMaps it caches: want one each", sh.Replica, sh.Writes, sh.Cached)
		}
		if sh.Mode != reflector.ShardServer {
			t.Errorf("%s filters in mode %s: the gate is on, the API server should", sh.Replica, sh.Mode)
		}
	}
	if cached != s.Objects {
		t.Errorf("the three caches hold %d ConfigMaps, want %d: each object in one", cached, s.Objects)
	}
	if s.Killed != "replica-2" || len(s.TakenOver) != 2 || s.takenOver() < s.Objects*20/100 {
		t.Errorf("%s killed, its objects taken over by %v: want replica-2's third taken by both others", s.Killed, s.TakenOver)
	}
	// The lease must expire first (counted from its last renewal, up to a
	// retry period before the kill); then a retry period to see it, the
	// handover, a relist and the reconciles: seconds, on a loaded machine.
	if least, most := storyLease-storyRetry, storyLease+20*time.Second; s.Takeover < least || s.Takeover > most {
		t.Errorf("takeover after %s: want between %s (the lease's expiry) and %s", s.Takeover, least, most)
	}
	if s.Moved < s.Objects*20/100 || s.Moved > s.Objects*47/100 {
		t.Errorf("%d of %d ConfigMaps moved to the joining replica: want about a third", s.Moved, s.Objects)
	}
	if len(s.Strays) > 0 {
		t.Errorf("objects moved between replicas that kept running: %v", s.Strays[:min(5, len(s.Strays))])
	}
	if len(s.Overlaps) > 0 {
		t.Errorf("keys reconciled by two replicas at once: %v", s.Overlaps[:min(5, len(s.Overlaps))])
	}
	for _, line := range []string{"server: the API server sends this replica its shard only", "killed without releasing its Lease", "deleted namespace steady-sharded-"} {
		if !strings.Contains(report, line) {
			t.Errorf("output lacks %q", line)
		}
	}
}
