package main

import (
	"strings"
	"testing"
)

func TestSteadySettings(t *testing.T) {
	for _, tc := range []struct {
		in      string
		opts    int
		fopts   int
		managed bool
		stock   bool
		slow    int
		err     string
	}{
		{in: ""},
		{in: "client,compact"},
		{in: "echoes,nogate,nopq", opts: 3},
		{in: "shared", fopts: 1},
		{in: "manager", managed: true},
		{in: "manager,echoes", opts: 1, managed: true},
		{in: "stock", stock: true},
		{in: "manager,stock", managed: true, stock: true},
		{in: "manager,off:http1,off:compact", managed: true, slow: 2},
		{in: "off:http2", err: `unknown setting "off:http2"`},
		{in: "http2", err: `unknown setting "http2"`},
		{in: "manager,shared", err: "do not go together"},
		{in: "typed", err: `unknown setting "typed"`},
	} {
		st, err := steadySettings(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || len(st.copts) != tc.opts || len(st.fopts) != tc.fopts || st.managed != tc.managed || st.stock != tc.stock || len(st.slow) != tc.slow {
			t.Errorf("%q: %d controller options, %d factory options, managed %v, stock %v, error %v; want %d, %d, %v, %v",
				tc.in, len(st.copts), len(st.fopts), st.managed, st.stock, err, tc.opts, tc.fopts, tc.managed, tc.stock)
		}
	}
}
