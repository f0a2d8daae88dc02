package e2e

// CPUSeconds returns the user and system CPU time this process has used,
// in seconds (0 where getrusage is missing).
func CPUSeconds() float64 { return cpuSeconds() }
