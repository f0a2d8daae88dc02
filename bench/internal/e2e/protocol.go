package e2e

// The parent and a child talk in lines. The child writes one JSON Report per
// line on stdout: PhaseSynced as soon as its cache holds the initial list,
// PhaseReport for every "report" line the parent writes on its stdin, and
// PhaseFinal after the parent closes its stdin and the controller has
// stopped. Progress and errors go to stderr.

// Phases of a Report.
const (
	PhaseSynced = "synced"
	PhaseReport = "report"
	PhaseFinal  = "final"
)

// CommandReport asks a child for a PhaseReport.
const CommandReport = "report"

// Report is what a child tells the parent.
type Report struct {
	Impl  string `json:"impl"`
	Phase string `json:"phase"`
	// SyncMillis is the time from the start of the child's main to the
	// moment its informer reported the initial list cached, in milliseconds.
	SyncMillis float64 `json:"sync_ms"`
	// CPUSeconds is the user and system CPU time the child has used so far
	// (for PhaseSynced: until the sync).
	CPUSeconds float64 `json:"cpu_s"`
	// Mem is read right after the sync for PhaseSynced, when the report is
	// asked for otherwise.
	Mem      Mem      `json:"mem"`
	Counts   Counts   `json:"counts"`
	Requests Requests `json:"requests"`
}
