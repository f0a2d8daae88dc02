//go:build !linux

package main

import "os/exec"

// setDeathSignal does nothing where the kernel offers no parent-death
// signal; cancelling the parent's context still kills the children.
func setDeathSignal(*exec.Cmd) {}
