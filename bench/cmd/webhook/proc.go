package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of utime and stime in /proc/<pid>/stat: USER_HZ,
// 100 on every Linux architecture Go supports.
const userHZ = 100

// procCPU returns the CPU time (user and system, all threads) process pid
// has used, from /proc/<pid>/stat.
func procCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the child's CPU time: %w", err)
	}
	ticks, err := parseStatCPU(data)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// parseStatCPU returns utime+stime, in clock ticks, from the contents of
// /proc/<pid>/stat. The command name, field 2, is in parentheses and may
// hold spaces and parentheses itself, so the fields are counted from the
// last ')'.
func parseStatCPU(data []byte) (uint64, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("no ')' in %q", data)
	}
	f := strings.Fields(string(data[i+1:])) // f[0] is field 3, the state
	const utime, stime = 14 - 3, 15 - 3
	if len(f) <= stime {
		return 0, fmt.Errorf("%d fields after the command name, want more than %d", len(f), stime)
	}
	u, err := strconv.ParseUint(f[utime], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("utime: %w", err)
	}
	s, err := strconv.ParseUint(f[stime], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stime: %w", err)
	}
	return u + s, nil
}

// procRSS returns the resident set size of process pid and its peak, in
// bytes, from /proc/<pid>/status.
func procRSS(pid int) (rss, peak uint64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("reading the child's RSS: %w", err)
	}
	if rss, err = statusKB(data, "VmRSS"); err != nil {
		return 0, 0, err
	}
	if peak, err = statusKB(data, "VmHWM"); err != nil {
		return 0, 0, err
	}
	return rss, peak, nil
}

// statusKB returns the value of the "name:   N kB" line of a
// /proc/<pid>/status, in bytes.
func statusKB(data []byte, name string) (uint64, error) {
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, name+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("status line %q: want N kB", strings.TrimSpace(line))
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("status line %q: %w", strings.TrimSpace(line), err)
		}
		return n << 10, nil
	}
	return 0, fmt.Errorf("no %s line in the status", name)
}

// loadAvg returns the first three fields of /proc/loadavg, or "?".
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}
