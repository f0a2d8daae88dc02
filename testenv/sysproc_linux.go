package testenv

import "syscall"

// childAttrs makes the kernel SIGKILL the child when its parent thread dies
// and puts it in its own process group, so a Ctrl-C aimed at the test does
// not reach etcd before testenv stops it in order.
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
