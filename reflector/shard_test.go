package reflector

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

const (
	lowHalf  = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	highHalf = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"
)

func TestParseShardSelectorAcceptsWhatTheServerAccepts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{lowHalf, lowHalf},
		{"  shardRange( object.metadata.uid ,\"0x0000000000000000\",'0x10000000000000000' ) ",
			"shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')"},
		{"(" + lowHalf + ") || (" + highHalf + ")", lowHalf + " || " + highHalf},
		{"shardRange(object.metadata.namespace, '0x00000000000000ff', '0x0000000000000100')",
			"shardRange(object.metadata.namespace, '0x00000000000000ff', '0x0000000000000100')"},
	} {
		s, err := ParseShardSelector(tc.in)
		if err != nil {
			t.Errorf("ParseShardSelector(%q): %v", tc.in, err)
			continue
		}
		if s.String() != tc.want {
			t.Errorf("ParseShardSelector(%q) = %q, want %q", tc.in, s.String(), tc.want)
		}
		// The normal form is apimachinery's: it parses back to itself.
		if back, err := ParseShardSelector(s.String()); err != nil || back.String() != s.String() {
			t.Errorf("round trip of %q: %v, %v", s.String(), back, err)
		}
	}
}

func TestParseShardSelectorRejectsWithAClearError(t *testing.T) {
	for _, in := range []string{
		"shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",                 // not 16 digits
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'",   // unclosed
		"shardRange(object.metadata.uid, '0x00000000000000AA', '0x8000000000000000')",  // upper case
		"shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')", // field
		"shardRange(metadata.uid, '0x0000000000000000', '0x8000000000000000')",         // not CEL-rooted
		"shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')",  // empty range
		"shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')",  // backwards
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')", // past 2^64
		"shardRange(object.metadata.uid, 0x0000000000000000, '0x8000000000000000')",    // unquoted
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000) ",  // unterminated
		lowHalf + " && " + highHalf, // only ||
		lowHalf + " || shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')", // two fields
		lowHalf + " ||",
		"hashRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
		"0x8000000000000000",
	} {
		s, err := ParseShardSelector(in)
		if err == nil {
			t.Errorf("ParseShardSelector(%q) = %q, want an error", in, s)
			continue
		}
		if !strings.Contains(err.Error(), "shard selector") {
			t.Errorf("ParseShardSelector(%q): error %q does not say what it is about", in, err)
		}
	}
	if _, err := New[CM](newFakeLW(), newRecStore(), WithName("cms"), WithShardSelector("shardRange(")); err == nil ||
		!strings.Contains(err.Error(), "reflector cms: WithShardSelector") {
		t.Fatalf("New with a malformed selector: %v, want an error naming the option", err)
	}
}

// The filter agrees with apimachinery's sharding.Selector, which
// kube-apiserver uses, on every object and selector, edges included.
func TestShardFilterMatchesApimachinery(t *testing.T) {
	selectors := []string{
		lowHalf, highHalf,
		"shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000') || " +
			"shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
		"shardRange(object.metadata.namespace, '0x0000000000000000', '0x5555555555555555')",
	}
	for i := range 2000 {
		uid := fmt.Sprintf("%08x-0000-4000-8000-%012d", i*2654435761, i)
		if hash(uid) != mustHex(t, sharding.HashField(uid)) {
			t.Fatalf("hash(%q) = %x, apimachinery %s", uid, hash(uid), sharding.HashField(uid))
		}
		obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Namespace: "ns-" + strconv.Itoa(i%37)}}
		for _, s := range selectors {
			f, err := newShardFilter(s)
			if err != nil {
				t.Fatal(err)
			}
			want, err := f.asApimachinery().Matches(obj)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.matches(obj); got != want {
				t.Fatalf("%s on uid %s namespace %s: %v, apimachinery %v", s, uid, obj.Namespace, got, want)
			}
			if got, err := MatchesShardSelector(s, obj); err != nil || got != want {
				t.Fatalf("MatchesShardSelector(%s) on uid %s: %v, %v; apimachinery %v", s, uid, got, err, want)
			}
		}
	}
	// The edges of a range: start is in, end is out, 2^64-1 is in the last.
	for _, tc := range []struct {
		h    uint64
		sel  string
		want bool
	}{
		{1<<63 - 1, lowHalf, true}, {1 << 63, lowHalf, false},
		{1 << 63, highHalf, true}, {1<<64 - 1, highHalf, true}, {0, highHalf, false},
	} {
		f, _ := newShardFilter(tc.sel)
		if got := f.contains(tc.h); got != tc.want {
			t.Errorf("%x in %s: %v, want %v", tc.h, tc.sel, got, tc.want)
		}
	}
}

func mustHex(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (f *shardFilter) asApimachinery() sharding.Selector {
	s, _ := ParseShardSelector(f.selector)
	return s
}

// uidIn returns a uid whose hash lies in the lower (low) or upper half.
func uidIn(low bool, n int) types.UID {
	for i := 0; ; i++ {
		uid := fmt.Sprintf("uid-%d-%d", n, i)
		if hash(uid) < 1<<63 == low {
			return types.UID(uid)
		}
	}
}

func cmIn(name, rv string, low bool) *corev1.ConfigMap {
	c := cm(name, rv)
	c.UID = uidIn(low, len(name)*1000+int(name[0]))
	return c
}

// A list without ShardInfo (a server without the feature gate) is
// filtered client-side, and so are its watch events; the mode says so.
func TestShardClientSideWhenTheServerDoesNotEcho(t *testing.T) {
	lw := newFakeLW().onList(cmList("10", "", cmIn("a", "8", true), cmIn("b", "9", false)), nil)
	w := lw.onWatch(nil)
	h := start(t, lw, WithShardSelector(lowHalf))
	if m := h.r.ShardMode(); m != ShardUnknown && m != ShardClient {
		t.Fatalf("mode before the list: %s", m)
	}
	c := lw.next(t)
	if c.opts.ShardSelector != lowHalf {
		t.Fatalf("list without the shard selector: %+v", c.opts)
	}
	h.store.expect(t, "replace 10 a")
	if m := h.r.ShardMode(); m != ShardClient {
		t.Fatalf("mode %s, want client", m)
	}
	if c := lw.next(t); !c.watch || c.opts.ShardSelector != lowHalf {
		t.Fatalf("watch without the shard selector: %+v", c.opts)
	}
	w.Add(cmIn("c", "11", false)) // outside: counts as a bookmark
	w.Add(cmIn("d", "12", true))
	w.Modify(cmIn("b", "13", false))
	w.Delete(cmIn("a", "14", true))
	for _, want := range []string{"bookmark 11", "add d 12", "bookmark 13", "delete a 14"} {
		h.store.expect(t, want)
	}
}

// A list with ShardInfo is the server's filtering; an object outside the
// shard arriving anyway turns the mode to client and is dropped.
func TestShardServerModeAndAStrayObject(t *testing.T) {
	list := cmList("10", "", cmIn("a", "8", true))
	list.ShardInfo = &metav1.ShardInfo{Selector: lowHalf}
	lw := newFakeLW().onList(list, nil)
	w := lw.onWatch(nil)
	h := start(t, lw, WithShardSelector(lowHalf))
	lw.next(t)
	h.store.expect(t, "replace 10 a")
	if m := h.r.ShardMode(); m != ShardServer {
		t.Fatalf("mode %s, want server", m)
	}
	lw.next(t)
	w.Add(cmIn("b", "11", false))
	h.store.expect(t, "bookmark 11")
	if m := h.r.ShardMode(); m != ShardClient {
		t.Fatalf("mode %s after a stray object, want client", m)
	}
}

// SetShardSelector ends the watch and relists, not older than what was
// seen, with the new selector, as one Replace.
func TestSetShardSelectorRelists(t *testing.T) {
	lw := newFakeLW().onList(cmList("10", "", cmIn("a", "8", true), cmIn("b", "9", false)), nil)
	w := lw.onWatch(nil)
	lw.onList(cmList("20", "", cmIn("b", "9", false)), nil)
	h := start(t, lw, WithShardSelector(lowHalf))
	lw.next(t)
	h.store.expect(t, "replace 10 a")
	lw.next(t)
	w.Action(watch.Bookmark, cm("", "15"))
	h.store.expect(t, "bookmark 15")
	if err := h.r.SetShardSelector("shardRange(object.metadata.uid, '0x8000000000000000', '0x1')"); err == nil ||
		!strings.Contains(err.Error(), "SetShardSelector") {
		t.Fatalf("malformed selector: %v", err)
	}
	if err := h.r.SetShardSelector(highHalf); err != nil {
		t.Fatal(err)
	}
	c := lw.next(t)
	isList(t, c, "15", metav1.ResourceVersionMatchNotOlderThan)
	if c.opts.ShardSelector != highHalf {
		t.Fatalf("relist with selector %q, want the new one", c.opts.ShardSelector)
	}
	h.store.expect(t, "replace 20 b")
	if s := h.r.ShardSelector(); s != highHalf {
		t.Fatalf("ShardSelector() = %q", s)
	}
	if err := h.r.SetShardSelector(highHalf); err != nil {
		t.Fatal(err)
	}
	if c := lw.next(t); !c.watch || c.opts.ResourceVersion != "20" {
		t.Fatalf("after the relist: %+v", c)
	}
	lw.none(t) // setting the same selector again changes nothing
}

// A streamed list learns the mode from a one-object list first, then
// filters the stream client-side.
func TestShardStreamProbesThenFilters(t *testing.T) {
	lw := newFakeLW().onList(cmList("5", ""), nil) // no ShardInfo
	w := lw.onWatch(nil)
	h := start(t, streamingLW{lw}, WithShardSelector(lowHalf))
	c := lw.next(t)
	if c.watch || c.opts.Limit != 1 || c.opts.ShardSelector != lowHalf {
		t.Fatalf("want a one-object probe list with the selector, got %+v", c)
	}
	c = lw.next(t)
	if !c.watch || c.opts.SendInitialEvents == nil || c.opts.ShardSelector != lowHalf {
		t.Fatalf("want a streamed list with the selector, got %+v", c)
	}
	w.Add(cmIn("a", "8", true))
	w.Add(cmIn("b", "9", false))
	w.Action(watch.Bookmark, bookmark("10", true).Object)
	h.store.expect(t, "replace 10 a")
	if m := h.r.ShardMode(); m != ShardClient {
		t.Fatalf("mode %s, want client", m)
	}
}
