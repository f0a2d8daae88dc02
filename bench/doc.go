// Package bench holds side-by-side benchmarks of steady against client-go
// and controller-runtime. Every benchmark runs both implementations in the
// same `go test -bench` run, on identical inputs, as sub-benchmarks whose
// names differ only in the final impl= element (steady, or client-go /
// controller-runtime), so that benchstat can line the pairs up:
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 6 | tee new.txt
//
// Command cmd/e2e runs the end-to-end comparison: one ConfigMap controller
// written with steady and with controller-runtime, each in its own process,
// against a real kube-apiserver and etcd (steady's testenv); see README.md.
// Command cmd/shards measures steady alone: what each replica of a sharded
// operator caches, receives from the API server and spends in CPU for 1, 2
// and 3 replicas, with the API server filtering and without.
//
// It is a separate module so that steady itself never depends on the
// implementations it is compared with.
package bench
