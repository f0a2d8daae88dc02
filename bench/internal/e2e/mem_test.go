package e2e

import (
	"os"
	"testing"
)

// The split of RSS adds up: the file and anonymous pages are parts of the
// resident set, and this process has both.
func TestReadMemSplitsRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	m := ReadMem()
	if m.RSSFile == 0 || m.RSSAnon == 0 || m.Heap == 0 {
		t.Fatalf("ReadMem = %+v: want file pages, anonymous pages and heap", m)
	}
	if m.RSSFile+m.RSSAnon > m.RSS || m.RSS > m.PeakRSS {
		t.Fatalf("ReadMem = %+v: file + anonymous pages over RSS, or RSS over its peak", m)
	}
}

// procStatus reads a "Name: N kB" line in bytes, and 0 for a missing or
// malformed one.
func TestProcStatus(t *testing.T) {
	data := []byte("Name:\tx\nVmRSS:\t  1024 kB\nRssFile:\t 3 kB\nRssAnon:\tlots kB\n")
	for name, want := range map[string]uint64{"VmRSS:": 1 << 20, "RssFile:": 3 << 10, "RssAnon:": 0, "VmHWM:": 0} {
		if got := procStatus(data, name); got != want {
			t.Errorf("procStatus(%q) = %d, want %d", name, got, want)
		}
	}
}
