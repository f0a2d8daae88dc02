package main

import "testing"

func TestParseStatCPU(t *testing.T) {
	// A command name with a space and parentheses; utime 1234, stime 56.
	stat := "4242 (we (ird) name) S 1 4242 4242 0 -1 4194560 1000 0 0 0 1234 56 0 0 20 0 8 0 100 1000000 2000 18446744073709551615\n"
	got, err := parseStatCPU([]byte(stat))
	if err != nil {
		t.Fatal(err)
	}
	if got != 1290 {
		t.Errorf("parseStatCPU = %d, want 1290", got)
	}
	for _, bad := range []string{"", "4242 (x) S 1 2", "4242 (x) S 1 4242 4242 0 -1 0 0 0 0 0 x 56 0"} {
		if _, err := parseStatCPU([]byte(bad)); err == nil {
			t.Errorf("parseStatCPU(%q): no error", bad)
		}
	}
}

func TestStatusKB(t *testing.T) {
	status := "Name:\tsteady\nVmHWM:\t   40960 kB\nVmRSS:\t   32768 kB\nThreads:\t9\n"
	for name, want := range map[string]uint64{"VmRSS": 32 << 20, "VmHWM": 40 << 20} {
		got, err := statusKB([]byte(status), name)
		if err != nil || got != want {
			t.Errorf("statusKB(%s) = %d, %v; want %d", name, got, err, want)
		}
	}
	if _, err := statusKB([]byte(status), "VmSwap"); err == nil {
		t.Error("statusKB of a missing line: no error")
	}
	if _, err := statusKB([]byte("VmRSS: 12 MB\n"), "VmRSS"); err == nil {
		t.Error("statusKB of a line in MB: no error")
	}
}

func TestProcSelf(t *testing.T) {
	if _, err := procCPU(1 << 30); err == nil {
		t.Error("procCPU of a missing process: no error")
	}
}
