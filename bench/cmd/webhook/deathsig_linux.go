package main

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel kill the child if the parent dies without
// cleaning up (SIGKILL, a crash).
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
