//go:build !unix

package e2e

// cpuSeconds returns 0 where getrusage is missing.
func cpuSeconds() float64 { return 0 }
