package shard

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
)

// DefaultVirtualNodes is the number of points each member places on the
// ring when WithVirtualNodes is not given. With 128, three members own a
// third each give or take 2.5 points of the keyspace (root mean square over
// 1,000 random member names; the worst of them was 9.4 points), and a
// member's selector names 80 to 90 ranges, about 6.5 KB, which
// kube-apiserver lists and watches with in milliseconds.
const DefaultVirtualNodes = 128

// Assignment maps every hash to exactly one member: consistent hashing
// with virtual nodes. Each member places virtualNodes points on the ring
// of 64-bit hashes and owns the hashes from each of its points up to the
// next point of any member, the last point's range wrapping round to 0.
// Every replica that knows the same members computes the same Assignment,
// so none has to be told it; a member joining takes about 1/N of the
// keyspace from the others, and a member leaving hands only its own
// ranges on.
//
// A point is FNV-1a of "identity#i" (i counting from 0) passed through
// splitmix64's finalizer, since FNV-1a alone places names that differ in
// their last characters close together. The zero Assignment has no
// members: Owner says "" for every hash. An Assignment is immutable and
// safe for concurrent use.
type Assignment struct {
	members      []string
	virtualNodes int
	points       []point // sorted by pos, no two at one pos
	ranges       map[string][]Range
}

type point struct {
	pos    uint64
	member string
}

// NewAssignment computes the assignment of the hash space to members
// (in any order; they are sorted) with virtualNodes points each. It fails,
// naming the culprit, on an empty or repeated identity or fewer than one
// virtual node.
func NewAssignment(members []string, virtualNodes int) (Assignment, error) {
	if virtualNodes < 1 {
		return Assignment{}, fmt.Errorf("shard: %d virtual nodes: want at least 1", virtualNodes)
	}
	ms := slices.Clone(members)
	slices.Sort(ms)
	for i, m := range ms {
		if m == "" {
			return Assignment{}, fmt.Errorf("shard: member %d: empty identity", i)
		}
		if i > 0 && ms[i-1] == m {
			return Assignment{}, fmt.Errorf("shard: member %q given twice", m)
		}
	}
	a := Assignment{members: ms, virtualNodes: virtualNodes, ranges: make(map[string][]Range, len(ms))}
	pts := make([]point, 0, len(ms)*virtualNodes)
	for _, m := range ms {
		for i := range virtualNodes {
			pts = append(pts, point{pos: mix(Hash(m + "#" + strconv.Itoa(i))), member: m})
		}
	}
	// Two points at one position are improbable but must be settled the
	// same way everywhere: the smaller identity keeps it.
	sort.Slice(pts, func(i, j int) bool {
		if pts[i].pos != pts[j].pos {
			return pts[i].pos < pts[j].pos
		}
		return pts[i].member < pts[j].member
	})
	for _, p := range pts {
		if n := len(a.points); n == 0 || a.points[n-1].pos != p.pos {
			a.points = append(a.points, p)
		}
	}
	for i, p := range a.points {
		r := Range{Start: p.pos, EndIsMax: true}
		if i+1 < len(a.points) {
			r = Range{Start: p.pos, End: a.points[i+1].pos}
		}
		a.ranges[p.member] = append(a.ranges[p.member], r)
	}
	if len(a.points) > 0 && a.points[0].pos > 0 {
		// Below the first point the ring wraps round to the last one.
		last := a.points[len(a.points)-1].member
		a.ranges[last] = append(a.ranges[last], Range{Start: 0, End: a.points[0].pos})
	}
	for m, rs := range a.ranges {
		a.ranges[m] = merge(rs)
	}
	return a, nil
}

// mix is splitmix64's finalizer: it spreads FNV-1a's output over the
// whole ring.
func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// Members are the identities the assignment shares the ring among, sorted.
func (a Assignment) Members() []string { return slices.Clone(a.members) }

// VirtualNodes is the number of points each member places on the ring.
func (a Assignment) VirtualNodes() int { return a.virtualNodes }

// Owner is the member that owns hash, or "" when there are no members.
func (a Assignment) Owner(hash uint64) string {
	if len(a.points) == 0 {
		return ""
	}
	// The owner is the member of the last point at or below hash; below
	// the first point, the ring's last one.
	i := sort.Search(len(a.points), func(i int) bool { return a.points[i].pos > hash })
	if i == 0 {
		return a.points[len(a.points)-1].member
	}
	return a.points[i-1].member
}

// Ranges are the ranges member owns, sorted and with adjacent ones merged;
// nil for a non-member.
func (a Assignment) Ranges(member string) []Range { return slices.Clone(a.ranges[member]) }

// Owns reports whether member owns hash.
func (a Assignment) Owns(member string, hash uint64) bool { return contains(a.ranges[member], hash) }

// Selector is the API server's ShardSelector for the objects member owns
// (see the package function Selector); it fails with ErrNoRanges for a
// member that owns nothing.
func (a Assignment) Selector(member string, field Field) (string, error) {
	sel, err := Selector(field, a.ranges[member])
	if err != nil {
		return "", fmt.Errorf("shard: selector of member %q: %w", member, err)
	}
	return sel, nil
}

// Equal reports whether a and b share the ring among the same members
// with the same number of virtual nodes, and so assign every hash alike.
func (a Assignment) Equal(b Assignment) bool {
	return a.virtualNodes == b.virtualNodes && slices.Equal(a.members, b.members)
}
