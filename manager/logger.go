package manager

import (
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// logOutput is where the default logger writes; tests replace it.
var logOutput io.Writer = os.Stderr

// defaultLogger is the manager's logger when WithLogger gives none: its
// info lines at V(0) and every error, with a timestamp, on standard error.
// A manager that discarded them would hide an operator's reconcile errors
// from whoever runs it; logr.Discard() is there for those who want that.
func defaultLogger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		if prefix != "" {
			prefix += " "
		}
		fmt.Fprintln(logOutput, prefix+args)
	}, funcr.Options{LogTimestamp: true})
}
