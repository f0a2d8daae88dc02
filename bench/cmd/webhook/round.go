package main

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/steadyctl/steady/bench/internal/admit"
)

// result is one implementation's run in one round.
type result struct {
	Impl  string `json:"impl"`
	Round int    `json:"round"`
	// Load is the measured window's load; Warmup the unmeasured load
	// before it.
	Load   loadStats `json:"load"`
	Warmup loadStats `json:"warmup"`
	// CPUSeconds is the child's CPU time (user and system) in the window.
	CPUSeconds float64 `json:"cpu_s"`
	// RSS and PeakRSS are the child's resident set size after the window
	// and its high-water mark, in bytes.
	RSS     uint64 `json:"rss_bytes"`
	PeakRSS uint64 `json:"peak_rss_bytes"`
	// Conns is how many connections the client opened to the child.
	Conns int64 `json:"conns"`
	// LoadAvg is /proc/loadavg before the child started and after the
	// window: the machine is shared, and this says how busy it was.
	LoadAvg [2]string `json:"loadavg"`
}

// CPUPerRequest is the child's CPU time per answered request in the
// window, in microseconds.
func (r result) CPUPerRequest() float64 {
	if n := r.Load.Sent - r.Load.Errors; n > 0 {
		return r.CPUSeconds * 1e6 / float64(n)
	}
	return 0
}

// runOne runs one implementation's child: start it, wait until it
// answers, warm it up, then measure its CPU time and the latencies of
// c.rate requests per second for c.duration.
func runOne(ctx context.Context, c config, bin, impl string, round int, certDir string, caPEM []byte, cases []admit.Case) (result, error) {
	res := result{Impl: impl, Round: round}
	port, err := freePort()
	if err != nil {
		return res, err
	}
	profile := ""
	if c.profileDir != "" {
		profile = filepath.Join(c.profileDir, fmt.Sprintf("r%d-%s.cpu.pprof", round, impl))
	}
	res.LoadAvg[0] = loadAvg()
	logf("round %d: %s (load average %s)", round, impl, res.LoadAvg[0])
	ch, err := startChild(ctx, impl, bin, childArgs(port, certDir, profile)...)
	if err != nil {
		return res, err
	}
	defer ch.kill()
	cl, err := admit.NewClient(fmt.Sprintf("127.0.0.1:%d", port), caPEM, c.conns, cases, admit.Schedule())
	if err != nil {
		return res, err
	}
	defer cl.Close()
	run := uint32(round)<<8 | uint32(len(impl)) // distinct per round and side
	if err := ch.waitReady(ctx, 30*time.Second, func() error {
		_, err := cl.Send(ctx, run, 1<<40)
		return err
	}); err != nil {
		return res, err
	}
	cl.Dials(1) // the probe's connection; failed probes dialled too

	if c.warmup > 0 {
		res.Warmup = generate(ctx, cl, run, 0, c.rate, c.warmup)
		logf("  warm-up: %d requests, %d errors", res.Warmup.Sent, res.Warmup.Errors)
	}
	if err := ch.command(admit.CommandProfile); err != nil {
		return res, err
	}
	cpu0, err := procCPU(ch.pid())
	if err != nil {
		return res, err
	}
	res.Load = generate(ctx, cl, run, 1<<32, c.rate, c.duration)
	cpu1, err := procCPU(ch.pid())
	if err != nil {
		return res, err
	}
	if err := ch.command(admit.CommandUnprofile); err != nil {
		return res, err
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	res.CPUSeconds = (cpu1 - cpu0).Seconds()
	if res.RSS, res.PeakRSS, err = procRSS(ch.pid()); err != nil {
		return res, err
	}
	res.Conns = cl.Dials(0)
	res.LoadAvg[1] = loadAvg()
	l := res.Load
	logf("  %d requests in %.1f s (%.0f/s), %d errors; CPU %.2f s (%.0f µs a request); latency p50 %.2f ms, p99 %.2f ms, max %.1f ms; %d connections",
		l.Sent, l.Seconds, l.Rate, l.Errors, res.CPUSeconds, res.CPUPerRequest(), l.P50Millis, l.P99Millis, l.MaxMillis, res.Conns)
	if l.FirstErr != "" {
		logf("  first error: %s", l.FirstErr)
	}
	return res, ch.stop()
}

// freePort returns a loopback port nobody listens on right now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
