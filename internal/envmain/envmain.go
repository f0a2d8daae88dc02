package envmain

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/steadyctl/steady/testenv"
)

// Run is a whole TestMain: it starts an environment, hands it to setup, runs
// the tests, stops the environment and, if the tests passed, fails the run
// when goroutines leaked. Idle HTTP keep-alive connections of the tests'
// clients are not leaks. Run does not return.
func Run(m *testing.M, setup func(*testenv.Environment)) {
	e, err := testenv.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	setup(e)
	code := m.Run()
	if err := e.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
			goleak.IgnoreTopFunction("internal/poll.runtime_pollWait")); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
