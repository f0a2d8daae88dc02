package manager

import (
	"fmt"
	"io"
	"os"
	"slices"

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
	return logr.New(&lazySink{sink: funcr.New(func(prefix, args string) {
		if prefix != "" {
			prefix += " "
		}
		fmt.Fprintln(logOutput, prefix+args)
	}, funcr.Options{LogTimestamp: true}).GetSink()})
}

// lazySink keeps the key/value pairs given to WithValues as they are until
// a line is written. funcr formats them at once, and a controller gives
// every reconcile a logger with its request's values, though most
// reconciles write no line: formatting them cost about 5% of the CPU of
// reconciling.
type lazySink struct {
	sink   logr.LogSink // funcr's, names applied
	values []any        // not yet given to sink, in order
}

// Init passes the call depth on to funcr.
func (l *lazySink) Init(info logr.RuntimeInfo) {
	info.CallDepth++ // the lazySink's own frame
	l.sink.Init(info)
}

// Enabled reports whether lines at level are written.
func (l *lazySink) Enabled(level int) bool { return l.sink.Enabled(level) }

// Info writes an info line, with the values kept so far first.
func (l *lazySink) Info(level int, msg string, kv ...any) { l.flat().Info(level, msg, kv...) }

// Error writes an error line, with the values kept so far first.
func (l *lazySink) Error(err error, msg string, kv ...any) { l.flat().Error(err, msg, kv...) }

// WithValues returns a sink that keeps kv after l's values.
func (l *lazySink) WithValues(kv ...any) logr.LogSink {
	return &lazySink{sink: l.sink, values: append(slices.Clip(l.values), kv...)}
}

// WithName returns a sink whose lines are named name after l's names.
func (l *lazySink) WithName(name string) logr.LogSink {
	return &lazySink{sink: l.sink.WithName(name), values: l.values}
}

// flat is the funcr sink with the values kept so far.
func (l *lazySink) flat() logr.LogSink {
	if len(l.values) == 0 {
		return l.sink
	}
	return l.sink.WithValues(l.values...)
}
