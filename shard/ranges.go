package shard

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"k8s.io/apimachinery/pkg/sharding"
)

// Range is the half-open range [Start, End) of the 64-bit hash space. The
// space ends at 2^64, one past the largest uint64: a range that runs to
// the end has EndIsMax set (and End 0).
type Range struct {
	Start, End uint64
	EndIsMax   bool
}

// Everything returns the whole hash space.
func Everything() Range { return Range{EndIsMax: true} }

// ErrNoRanges is returned when a selector is asked for no ranges: the
// API server's syntax has no selector that matches nothing, and an empty
// ShardSelector would match everything.
var ErrNoRanges = errors.New("shard: no ranges owned, and no selector matches nothing")

// Contains reports whether h lies in r.
func (r Range) Contains(h uint64) bool {
	return h >= r.Start && (r.EndIsMax || h < r.End)
}

// Empty reports whether r holds no hash.
func (r Range) Empty() bool { return !r.EndIsMax && r.End <= r.Start }

// Fraction is the share of the hash space r covers, 0 to 1.
func (r Range) Fraction() float64 {
	if r.Empty() {
		return 0
	}
	if r.EndIsMax {
		return (math.Ldexp(1, 64) - float64(r.Start)) / math.Ldexp(1, 64)
	}
	return float64(r.End-r.Start) / math.Ldexp(1, 64)
}

// String is r in the API server's notation, "[0x…, 0x…)".
func (r Range) String() string { return "[" + r.startHex() + ", " + r.endHex() + ")" }

func (r Range) startHex() string { return fmt.Sprintf("0x%016x", r.Start) }

func (r Range) endHex() string {
	if r.EndIsMax {
		return "0x10000000000000000"
	}
	return fmt.Sprintf("0x%016x", r.End)
}

// Fraction is the share of the hash space the ranges cover, 0 to 1; the
// ranges must not overlap, as an Assignment's do not.
func Fraction(ranges []Range) float64 {
	var f float64
	for _, r := range ranges {
		f += r.Fraction()
	}
	return f
}

// Selector is the API server's ShardSelector (ListOptions.ShardSelector)
// for the objects whose field hashes into one of the ranges:
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || …
//
// It fails with ErrNoRanges for no ranges, since an empty selector would
// select everything, and names the field or range it cannot express.
func Selector(field Field, ranges []Range) (string, error) {
	if err := field.validate(); err != nil {
		return "", err
	}
	if len(ranges) == 0 {
		return "", ErrNoRanges
	}
	reqs := make([]sharding.ShardRangeRequirement, 0, len(ranges))
	for _, r := range merge(ranges) {
		if r.Empty() {
			continue
		}
		reqs = append(reqs, sharding.ShardRangeRequirement{Key: string(field), Start: r.startHex(), End: r.endHex()})
	}
	if len(reqs) == 0 {
		return "", ErrNoRanges
	}
	return sharding.NewSelector(reqs...).String(), nil
}

// merge sorts ranges by start and joins those that touch or overlap,
// dropping empty ones, so that a selector names as few as it can.
func merge(ranges []Range) []Range {
	rs := make([]Range, 0, len(ranges))
	for _, r := range ranges {
		if !r.Empty() {
			rs = append(rs, r)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && (out[n-1].EndIsMax || out[n-1].End >= r.Start) {
			last := &out[n-1]
			if r.EndIsMax || (!last.EndIsMax && r.End > last.End) {
				last.End, last.EndIsMax = r.End, r.EndIsMax
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// contains reports whether one of the ranges holds h.
func contains(ranges []Range, h uint64) bool {
	// Ranges are few and sorted; a binary search finds the last that
	// starts at or before h.
	i := sort.Search(len(ranges), func(i int) bool { return ranges[i].Start > h })
	return i > 0 && ranges[i-1].Contains(h)
}
