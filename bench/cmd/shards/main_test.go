package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	parse := func(args ...string) (config, error) {
		fs := flag.NewFlagSet("shards", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		return parseFlags(fs, args)
	}
	c, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	if c.objects != 3000 || !slices.Equal(c.replicas, []int{1, 2, 3}) || !slices.Equal(c.filters, []string{"server", "client"}) {
		t.Errorf("defaults: objects %d, replicas %v, filters %v; want 3000, [1 2 3], [server client]", c.objects, c.replicas, c.filters)
	}
	if c, err = parse("-replicas", "2, 4", "-filter", "client"); err != nil || !slices.Equal(c.replicas, []int{2, 4}) || !slices.Equal(c.filters, []string{"client"}) {
		t.Errorf("-replicas '2, 4' -filter client: %v, %v, %v", c.replicas, c.filters, err)
	}
	for _, bad := range []struct {
		args  []string
		names string
	}{
		{[]string{"-replicas", "1,0"}, "-replicas"},
		{[]string{"-replicas", "1,x"}, "-replicas"},
		{[]string{"-filter", "server,both"}, `"both"`},
		{[]string{"-objects", "0"}, "-objects"},
	} {
		if _, err := parse(bad.args...); err == nil || !strings.Contains(err.Error(), bad.names) {
			t.Errorf("parseFlags(%q) = %v, want an error naming %s", bad.args, err, bad.names)
		}
	}
}

func TestSettled(t *testing.T) {
	r := &round{Identities: []string{"b", "a"}, Expected: map[string]int{"a": 10, "b": 20}}
	ok := Report{Identity: "a", Synced: true, Mode: "server", Members: []string{"a", "b"}, Cached: 10}
	if err := settled(ok, r, "server"); err != nil {
		t.Errorf("settled(%+v) = %v, want nil", ok, err)
	}
	for what, change := range map[string]func(*Report){
		"not synced":          func(r *Report) { r.Synced = false },
		"one member missing":  func(r *Report) { r.Members = []string{"a"} },
		"cache not its share": func(r *Report) { r.Cached = 11 },
		"the other mode":      func(r *Report) { r.Mode = "client" },
	} {
		rep := ok
		change(&rep)
		if err := settled(rep, r, "server"); err == nil || !strings.Contains(err.Error(), "replica a") {
			t.Errorf("%s: settled = %v, want an error naming replica a", what, err)
		}
	}
}
