//go:build !e2e_manager

package main

import (
	"context"
	"errors"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/bench/internal/e2e"
	"github.com/steadyctl/steady/object"
)

// runManaged is in manager.go, built with the tag e2e_manager: linking
// steady's manager would put its pages into every run of this child.
func runManaged[T object.Object](context.Context, *rest.Config, e2e.Options, *e2e.Logic, writerFunc[T], settings) (e2e.Running, error) {
	return e2e.Running{}, errors.New("-steady manager: this child was built without the tag e2e_manager (the parent adds it for -steady manager)")
}
