// Package demo gives steady's examples a cluster to run against: the one
// cluster.Load finds (--kubeconfig, $KUBECONFIG, the in-cluster config,
// ~/.kube/config), or, when there is none or -local is given, a local
// control plane (etcd + kube-apiserver, from package testenv) started for
// the run.
package demo
