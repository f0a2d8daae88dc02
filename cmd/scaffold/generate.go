package main

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// generate fills in what the templates cannot: go.sum and the versions of
// go.mod's requirements (go mod tidy), then, unless skipped, the deep
// copies, the CRD and the ClusterRole, by the project's own //go:generate
// line, so that the command its README gives is the one that ran.
func generate(dir string, controllerGen bool, out io.Writer) error {
	if err := goCommand(dir, out, "mod", "tidy"); err != nil {
		return err
	}
	if !controllerGen {
		return nil
	}
	return goCommand(dir, out, "generate", "./...")
}

// goCommand runs go with args in dir, saying so on out, where its output
// goes too.
func goCommand(dir string, out io.Writer, args ...string) error {
	line := "go " + strings.Join(args, " ")
	fmt.Fprintf(out, "scaffold: %s\n", line)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s in %s: %w", line, dir, err)
	}
	return nil
}
