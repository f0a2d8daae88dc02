package main

import (
	"testing"

	"github.com/steadyctl/steady/bench/internal/e2e"
)

// TestRowsJudgeIssue24Targets checks that each table judges the rows issue
// 24 sets for it, and no others.
func TestRowsJudgeIssue24Targets(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    config
		want map[string]float64
	}{
		{"configmaps", config{kind: e2e.KindConfigMap, objects: 10000}, map[string]float64{
			"child CPU until synced (s)":       0.6,
			"RSS after sync (MiB)":             0.6,
			"Go heap after sync (MiB)":         0.4,
			"child CPU, initial reconcile (s)": 0.6,
			"event→reconcile latency p99 (ms)": 1.0,
			"API requests, initial":            1.0,
			"API requests, load":               1.0,
			"API requests, total":              1.0,
		}},
		{"custom resources", config{kind: e2e.KindCR, objects: 10000}, map[string]float64{
			"sync time, start → cache synced (ms)": 0.5,
			"RSS after sync (MiB)":                 0.6,
			"Go heap after sync (MiB)":             0.4,
			"API requests, initial":                1.0,
			"API requests, load":                   1.0,
			"API requests, total":                  1.0,
		}},
		{"scale", config{kind: e2e.KindConfigMap, objects: 100000}, map[string]float64{
			"sync time, start → cache synced (ms)": 0.7,
			"Go heap after sync (MiB)":             0.4,
			"API requests, initial":                1.0,
			"API requests, load":                   1.0,
			"API requests, total":                  1.0,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]float64{}
			for _, rw := range rows(tc.c) {
				if rw.target > 0 {
					got[rw.name] = rw.target
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("%d rows with targets, want %d: %v", len(got), len(tc.want), got)
			}
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("row %q: target %v, want %v", name, got[name], want)
				}
			}
		})
	}
}
