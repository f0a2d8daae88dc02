package testenv

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitGone polls until none of pids is alive; processes are reaped by init
// (or by us) asynchronously, so this is a condition wait with a deadline.
func waitGone(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, pid := range pids {
		for processAlive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still alive", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// needsBinaries skips t under -short: it runs etcd and kube-apiserver.
// (Shared does this for the tests of the shared control plane; these start
// their own.)
func needsBinaries(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a control plane (etcd and kube-apiserver); skipped under -short")
	}
}

func TestStopLeavesNothing(t *testing.T) {
	needsBinaries(t)
	e, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{e.etcd.cmd.Process.Pid, e.apiserver.cmd.Process.Pid}
	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pids...)
	if _, err := os.Stat(e.dir); !os.IsNotExist(err) {
		t.Fatalf("Stop left %s behind (stat: %v)", e.dir, err)
	}
	if err := e.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

const orphanHelperEnv = "STEADY_TESTENV_ORPHAN_HELPER"

// TestOrphanHelper is not a test on its own: TestKilledTestLeavesNoOrphan runs
// it in a child process, which starts an environment, reports it and waits to
// be killed.
func TestOrphanHelper(t *testing.T) {
	if os.Getenv(orphanHelperEnv) == "" {
		t.Skip("helper for TestKilledTestLeavesNoOrphan")
	}
	e, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ENV %d %d %s\n", e.etcd.cmd.Process.Pid, e.apiserver.cmd.Process.Pid, e.dir)
	select {} // until SIGKILL
}

func TestKilledTestLeavesNoOrphan(t *testing.T) {
	needsBinaries(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestOrphanHelper$", "-test.v")
	// A temporary directory of its own: another package's tests, starting
	// an environment meanwhile, would sweep the killed helper's directory.
	cmd.Env = append(os.Environ(), orphanHelperEnv+"=1", "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var etcdPID, apiPID int
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "ENV ") {
			if _, err := fmt.Sscanf(line, "ENV %d %d %s", &etcdPID, &apiPID, &dir); err != nil {
				t.Fatalf("helper said %q: %v", line, err)
			}
			break
		}
	}
	if dir == "" {
		t.Fatal("helper did not start an environment")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, etcdPID, apiPID) // the parent-death signal killed them

	// The directory outlives a SIGKILL; the next Start's sweep removes it.
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("expected the killed helper's directory to remain until a sweep: %v", err)
	}
	sweepOrphans(filepath.Dir(dir))
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("sweep left %s behind", dir)
	}
}

func TestStartErrorsNameAMissingBinaryDir(t *testing.T) {
	_, err := Start(context.Background(), WithBinaryDir("/nonexistent/steady-assets"))
	if err == nil || !strings.Contains(err.Error(), "WithBinaryDir=/nonexistent/steady-assets") {
		t.Fatalf("missing binary dir: got %v", err)
	}
}

func TestStartErrorsNameAFailedStart(t *testing.T) {
	needsBinaries(t)
	// A temporary directory of its own, where no other package's tests
	// make environments meanwhile.
	t.Setenv("TMPDIR", t.TempDir())
	before := envDirs(t)
	_, err := Start(context.Background(), WithAPIServerFlags("--no-such-flag"))
	if err == nil || !strings.Contains(err.Error(), "kube-apiserver exited during start-up") ||
		!strings.Contains(err.Error(), "no-such-flag") {
		t.Fatalf("apiserver with a bad flag: got %v", err)
	}
	if after := envDirs(t); len(after) > len(before) {
		t.Fatalf("failed Start left a directory: before %v, after %v", before, after)
	}
}

func envDirs(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(os.TempDir(), "steady-testenv", "env-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
