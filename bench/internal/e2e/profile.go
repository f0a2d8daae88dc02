package e2e

import (
	"errors"
	"os"
	"runtime/pprof"
)

// profiler writes a child's profiles, split at the sync so that each can be
// read on its own: prefix+".sync.cpu.pprof" (start → synced),
// prefix+".run.cpu.pprof" (synced → stop), and heap profiles at the sync
// (prefix+".sync.heap.pprof") and at every report the parent asks for
// (".report1.heap.pprof", …). An empty prefix writes nothing.
type profiler struct {
	prefix string
	cpu    *os.File
}

// startCPU starts a CPU profile into prefix+"."+part+".cpu.pprof", ending
// the one in progress.
func (p *profiler) startCPU(part string) error {
	if p.prefix == "" {
		return nil
	}
	if err := p.stopCPU(); err != nil {
		return err
	}
	f, err := os.Create(p.prefix + "." + part + ".cpu.pprof")
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	p.cpu = f
	return nil
}

// stopCPU ends the CPU profile in progress, if any.
func (p *profiler) stopCPU() error {
	if p.cpu == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := p.cpu.Close()
	p.cpu = nil
	return err
}

// heap writes a heap profile into prefix+"."+part+".heap.pprof".
func (p *profiler) heap(part string) error {
	if p.prefix == "" {
		return nil
	}
	f, err := os.Create(p.prefix + "." + part + ".heap.pprof")
	if err != nil {
		return err
	}
	return errors.Join(pprof.WriteHeapProfile(f), f.Close())
}
