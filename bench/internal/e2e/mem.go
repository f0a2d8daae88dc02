package e2e

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
)

// Mem is a process's memory after a garbage collection.
type Mem struct {
	// RSS is the resident set size (VmRSS); PeakRSS its high-water mark
	// since the process started (VmHWM). Both are 0 where /proc is missing.
	RSS     uint64 `json:"rss_bytes"`
	PeakRSS uint64 `json:"peak_rss_bytes"`
	// RSSFile and RSSAnon split RSS: pages of mapped files (mostly the
	// binary's own) and anonymous pages (the Go heap, stacks, runtime).
	RSSFile uint64 `json:"rss_file_bytes"`
	RSSAnon uint64 `json:"rss_anon_bytes"`
	// Heap is the live Go heap (HeapAlloc right after runtime.GC).
	Heap uint64 `json:"heap_bytes"`
}

// ReadMem collects garbage, then reads the Go heap and the process's RSS.
func ReadMem() Mem {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := procMem("self")
	m.Heap = ms.HeapAlloc
	return m
}

// ProcRSS returns the resident set size and its high-water mark of the
// process pid ("self" for this one), or zeros where /proc is missing.
func ProcRSS(pid string) (rss, peak uint64) {
	m := procMem(pid)
	return m.RSS, m.PeakRSS
}

// procMem reads the RSS figures of process pid from /proc; zeros where
// /proc is missing.
func procMem(pid string) Mem {
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return Mem{}
	}
	return Mem{
		RSS: procStatus(data, "VmRSS:"), PeakRSS: procStatus(data, "VmHWM:"),
		RSSFile: procStatus(data, "RssFile:"), RSSAnon: procStatus(data, "RssAnon:"),
	}
}

// procStatus returns the value, in bytes, of a "Name: N kB" line of a
// /proc/<pid>/status file, or 0.
func procStatus(data []byte, name string) uint64 {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte(name))
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
