package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/steadyctl/steady/bench/internal/e2e"
)

// apiServerRSS returns the resident set size and its high-water mark of the
// kube-apiserver this process started (testenv runs it as a child), with
// ok false where it cannot be found (no /proc).
func apiServerRSS() (rss, peak uint64, ok bool) {
	self := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "kube-apiserver" {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm is known, so the fields after it
		// split cleanly.
		_, after, _ := strings.Cut(string(stat), ") ")
		if f := strings.Fields(after); len(f) < 2 || f[1] != self {
			continue
		}
		rss, peak = e2e.ProcRSS(filepath.Base(dir))
		return rss, peak, true
	}
	return 0, 0, false
}

// apiServerMem describes kube-apiserver's memory for progress messages.
func apiServerMem() string {
	rss, peak, ok := apiServerRSS()
	if !ok {
		return "kube-apiserver's RSS unknown"
	}
	return fmt.Sprintf("kube-apiserver RSS %s (peak %s)", mib(rss), mib(peak))
}
