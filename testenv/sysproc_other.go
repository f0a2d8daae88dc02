//go:build unix && !linux

package testenv

import "syscall"

// childAttrs puts the child in its own process group. Outside Linux there is
// no parent-death signal: a test binary killed with SIGKILL can leave its
// children running, and Start's sweep removes their directories once they die.
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
