package testenv

import (
	"io"
	"os"
	"time"
)

// Option configures Start and EnsureBinaries.
type Option func(*options)

type options struct {
	binaryDir      string
	apiserverFlags []string
	etcdFlags      []string
	startTimeout   time.Duration
	progress       io.Writer
}

func newOptions(opts []Option) *options {
	o := &options{startTimeout: 60 * time.Second, progress: os.Stderr}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithBinaryDir runs etcd and kube-apiserver from dir instead of the
// environment variables or the build cache.
func WithBinaryDir(dir string) Option { return func(o *options) { o.binaryDir = dir } }

// WithAPIServerFlags appends flags to kube-apiserver's command line, e.g.
// "--feature-gates=WatchList=false". A flag given here overrides testenv's
// value for the same flag.
func WithAPIServerFlags(flags ...string) Option {
	return func(o *options) { o.apiserverFlags = append(o.apiserverFlags, flags...) }
}

// WithEtcdFlags appends flags to etcd's command line.
func WithEtcdFlags(flags ...string) Option {
	return func(o *options) { o.etcdFlags = append(o.etcdFlags, flags...) }
}

// WithStartTimeout bounds how long each process may take to become ready
// (default 60s). It does not include building the binaries.
func WithStartTimeout(d time.Duration) Option { return func(o *options) { o.startTimeout = d } }

// WithProgress sets where build progress lines go (default os.Stderr).
func WithProgress(w io.Writer) Option { return func(o *options) { o.progress = w } }
