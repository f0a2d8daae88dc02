package reflector

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
)

// ShardMode tells who keeps a sharded reflector's objects to its shard
// selector (WithShardSelector).
type ShardMode int

const (
	// ShardNone: no shard selector; the reflector holds every object.
	ShardNone ShardMode = iota
	// ShardUnknown: a shard selector is set, and no list has told yet
	// whether the server applies it.
	ShardUnknown
	// ShardServer: the API server applies the selector (it echoed
	// ListMeta.ShardInfo): only the shard's objects cross the network.
	ShardServer
	// ShardClient: the API server ignored the selector (the
	// ShardedListAndWatch feature gate is off, or the server is older), so
	// it sends every object and the reflector drops those outside the
	// shard. The store holds the same objects; only the saving is lost.
	ShardClient
)

func (m ShardMode) String() string {
	switch m {
	case ShardNone:
		return "none"
	case ShardUnknown:
		return "unknown"
	case ShardServer:
		return "server"
	case ShardClient:
		return "client"
	}
	return "ShardMode(" + strconv.Itoa(int(m)) + ")"
}

// ParseShardSelector parses a shard selector in the API server's syntax
// (ListOptions.ShardSelector, KEP-5866):
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')
//
// Each range is [start, end) over the 64-bit FNV-1a hash of
// object.metadata.uid or object.metadata.namespace, 16 lowercase hex
// digits after 0x, with '0x10000000000000000' (2^64) as the end of the
// space; several ranges over one field are joined with ||. It checks what
// kube-apiserver checks, so a selector it accepts is one the server
// accepts. "" is the empty selector: everything.
func ParseShardSelector(sel string) (sharding.Selector, error) {
	p := selParser{s: strings.TrimSpace(sel)}
	if p.s == "" {
		return sharding.Everything(), nil
	}
	reqs, err := p.or()
	if p.skip(); err == nil && p.i < len(p.s) {
		err = p.fail("expected || or the end")
	}
	if err != nil {
		return nil, fmt.Errorf("shard selector %q: %w", sel, err)
	}
	for _, r := range reqs[1:] {
		if r.Key != reqs[0].Key {
			return nil, fmt.Errorf("shard selector %q: all ranges must hash one field, got %s and %s", sel, reqs[0].Key, r.Key)
		}
	}
	return sharding.NewSelector(reqs...), nil
}

// selParser reads the subset of CEL the API server accepts for a shard
// selector: shardRange calls joined by ||, with optional parentheses.
type selParser struct {
	s string
	i int
}

func (p *selParser) skip() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *selParser) fail(what string) error {
	return fmt.Errorf("at offset %d: %s", p.i, what)
}

// accept consumes tok, after blanks, if it is next.
func (p *selParser) accept(tok string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *selParser) expect(tok string) error {
	if !p.accept(tok) {
		return p.fail("expected " + tok)
	}
	return nil
}

func (p *selParser) or() ([]sharding.ShardRangeRequirement, error) {
	var reqs []sharding.ShardRangeRequirement
	for {
		rs, err := p.term()
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, rs...)
		if !p.accept("||") {
			return reqs, nil
		}
	}
}

func (p *selParser) term() ([]sharding.ShardRangeRequirement, error) {
	if p.accept("(") {
		reqs, err := p.or()
		if err != nil {
			return nil, err
		}
		return reqs, p.expect(")")
	}
	if !p.accept("shardRange") {
		return nil, p.fail("expected shardRange(field, 'start', 'end'); only shardRange and || are allowed")
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	p.skip()
	start := p.i
	for p.i < len(p.s) && (isIdent(p.s[p.i]) || p.s[p.i] == '.') {
		p.i++
	}
	r := sharding.ShardRangeRequirement{Key: p.s[start:p.i]}
	if r.Key != "object.metadata.uid" && r.Key != "object.metadata.namespace" {
		return nil, fmt.Errorf("field %q: want object.metadata.uid or object.metadata.namespace", r.Key)
	}
	var err error
	for _, bound := range []*string{&r.Start, &r.End} {
		if err = p.expect(","); err != nil {
			return nil, err
		}
		if *bound, err = p.hex(); err != nil {
			return nil, err
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	if !sharding.HexLess(r.Start, r.End) {
		return nil, fmt.Errorf("range start %s is not below its end %s", r.Start, r.End)
	}
	return []sharding.ShardRangeRequirement{r}, nil
}

// hex reads a quoted bound: 0x and 16 lowercase hex digits, or 2^64.
func (p *selParser) hex() (string, error) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", p.fail("expected a quoted bound such as '0x8000000000000000'")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", p.fail("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	digits, ok := strings.CutPrefix(v, "0x")
	switch {
	case v == "0x10000000000000000":
		return v, nil
	case !ok || len(digits) != 16 || strings.Trim(digits, "0123456789abcdef") != "":
		return "", fmt.Errorf("bound %q: want 0x and 16 lowercase hex digits, or 0x10000000000000000", v)
	}
	return v, nil
}

func isIdent(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// shardFilter is a parsed, non-empty selector in the form matched per
// object: ranges [lo, hi] of hashes, inclusive so that 2^64 needs no bit.
type shardFilter struct {
	selector  string // as the server gets it
	namespace bool   // hash metadata.namespace, not metadata.uid
	ranges    [][2]uint64
}

// newShardFilter parses sel; nil for the empty selector.
func newShardFilter(sel string) (*shardFilter, error) {
	s, err := ParseShardSelector(sel)
	if err != nil || s.Empty() {
		return nil, err
	}
	f := &shardFilter{selector: s.String()}
	for _, r := range s.Requirements() {
		f.namespace = r.Key == "object.metadata.namespace"
		lo, _ := strconv.ParseUint(r.Start[2:], 16, 64) // checked by the parser
		hi := uint64(1<<64 - 1)
		if r.End != "0x10000000000000000" {
			end, _ := strconv.ParseUint(r.End[2:], 16, 64)
			hi = end - 1 // end > start >= 0
		}
		f.ranges = append(f.ranges, [2]uint64{lo, hi})
	}
	return f, nil
}

// hash is the server's hash of a field value: 64-bit FNV-1a.
func hash(value string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(value)) // never fails
	return h.Sum64()
}

// matches reports whether obj's hash lies in one of the ranges. An
// object's uid and namespace never change, so neither does the answer.
func (f *shardFilter) matches(obj metav1.Object) bool {
	v := string(obj.GetUID())
	if f.namespace {
		v = obj.GetNamespace()
	}
	return f.contains(hash(v))
}

// contains reports whether hash h lies in one of the ranges.
func (f *shardFilter) contains(h uint64) bool {
	for _, r := range f.ranges {
		if r[0] <= h && h <= r[1] {
			return true
		}
	}
	return false
}

// shardInfo returns the selector a list response says the server applied,
// and whether it says so at all.
func shardInfo(list runtime.Object, lm metav1.ListInterface) (string, bool) {
	if s, ok := lm.(metav1.ShardedListInterface); ok {
		if info := s.GetShardInfo(); info != nil {
			return info.Selector, true
		}
		return "", false
	}
	if u, ok := list.(*unstructured.UnstructuredList); ok {
		sel, found, err := unstructured.NestedString(u.Object, "metadata", "shardInfo", "selector")
		return sel, found && err == nil
	}
	return "", false
}

// MatchesShardSelector reports whether obj belongs to the shard that sel
// selects (the syntax of WithShardSelector): whether a reflector with that
// selector lists and watches it. The empty selector matches every object.
func MatchesShardSelector(sel string, obj metav1.Object) (bool, error) {
	f, err := newShardFilter(sel)
	if err != nil || f == nil {
		return err == nil, err
	}
	return f.matches(obj), nil
}
