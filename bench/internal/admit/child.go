package admit

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"
)

// The parent's commands to a child, one a line on its stdin; closing
// stdin stops the child.
const (
	// CommandProfile starts the CPU profile (with -cpuprofile).
	CommandProfile = "profile"
	// CommandUnprofile stops it and writes the file.
	CommandUnprofile = "unprofile"
)

// Options are a child's flags, the same for both implementations.
type Options struct {
	Host    string // the address to listen on
	Port    int
	CertDir string // holding tls.crt and tls.key
}

// StartFunc starts an implementation's webhook server, serving the
// validator at Path, and returns without waiting for it to listen; done
// receives its result once ctx is done.
type StartFunc func(ctx context.Context, o Options) (done <-chan error, err error)

// Main is the main function of a child: impl names the implementation,
// start starts it. It serves until stdin closes, then exits the process.
func Main(impl string, start StartFunc) {
	var o Options
	fs := flag.NewFlagSet(impl, flag.ExitOnError)
	fs.StringVar(&o.Host, "host", "127.0.0.1", "address to listen on")
	fs.IntVar(&o.Port, "port", 0, "port to listen on")
	fs.StringVar(&o.CertDir, "cert-dir", "", "directory of tls.crt and tls.key")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the window the parent marks to this file")
	_ = fs.Parse(os.Args[1:]) // ExitOnError
	if o.Port <= 0 || o.CertDir == "" {
		fmt.Fprintln(os.Stderr, "usage: child -port N -cert-dir DIR [-host ADDR] [-cpuprofile FILE]")
		os.Exit(2)
	}
	if err := runChild(o, start, *profile); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", impl, err)
		os.Exit(1)
	}
}

func runChild(o Options, start StartFunc, profile string) (err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done, err := start(ctx, o)
	if err != nil {
		return err
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		for in := bufio.NewScanner(os.Stdin); in.Scan(); {
			lines <- in.Text()
		}
	}()
	var prof *os.File
	defer func() {
		if prof != nil {
			pprof.StopCPUProfile()
			err = errors.Join(err, prof.Close())
		}
	}()
	for {
		select {
		case err := <-done:
			return fmt.Errorf("server stopped: %v", err)
		case line, ok := <-lines:
			switch {
			case !ok:
				cancel()
				select {
				case err := <-done:
					if err != nil && !errors.Is(err, context.Canceled) {
						return fmt.Errorf("server: %w", err)
					}
					return nil
				case <-time.After(time.Minute):
					return errors.New("server did not stop within a minute")
				}
			case line == CommandProfile && profile != "" && prof == nil:
				if prof, err = os.Create(profile); err != nil {
					return err
				}
				if err := pprof.StartCPUProfile(prof); err != nil {
					return err
				}
			case line == CommandUnprofile && prof != nil:
				pprof.StopCPUProfile()
				err, prof = prof.Close(), nil
				if err != nil {
					return err
				}
			}
		}
	}
}
