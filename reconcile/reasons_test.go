package reconcile_test

import (
	"context"
	"testing"

	"github.com/steadyctl/steady/reconcile"
)

func TestReasonsString(t *testing.T) {
	for _, tc := range []struct {
		r    reconcile.Reasons
		want string
	}{
		{0, "none"},
		{reconcile.PrimaryCreated, "primary_created"},
		{reconcile.RequeueAfter, "requeue_after"},
		{reconcile.WatchedDeleted | reconcile.Resync | reconcile.External, "watched_deleted,external,resync"},
		{reconcile.Owned, "owned_created,owned_updated,owned_deleted"},
		{1 << 40, "reason_40"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("Reasons(%#x).String() = %q, want %q", uint64(tc.r), got, tc.want)
		}
	}
	if got := testing.AllocsPerRun(100, func() { _ = reconcile.InitialList.String() }); got != 0 {
		t.Errorf("String of one reason allocates %v times", got)
	}
}

func TestReasonsHasAndAny(t *testing.T) {
	r := reconcile.PrimaryUpdated | reconcile.OwnedDeleted
	if !r.Has(reconcile.PrimaryUpdated) || r.Has(reconcile.Primary) {
		t.Error("Has must need every reason asked for")
	}
	if !r.Any(reconcile.Primary) || r.Any(reconcile.Watched) {
		t.Error("Any must need one reason asked for")
	}
	if got := reconcile.ReasonsFrom(context.Background()); got != 0 {
		t.Errorf("ReasonsFrom a bare context = %v, want none", got)
	}
	if got := reconcile.ReasonsFrom(reconcile.ContextWithReasons(context.Background(), r)); got != r {
		t.Errorf("ReasonsFrom = %v, want %v", got, r)
	}
}
