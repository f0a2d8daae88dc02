// Package demo gives steady's examples a cluster to run against: the one
// in $KUBECONFIG when that is set, otherwise a local control plane (etcd +
// kube-apiserver, from package testenv) started for the run.
package demo
