// Package demo gives steady's examples a cluster to run against: the one
// cluster.Load finds (--kubeconfig, $KUBECONFIG, the in-cluster config,
// ~/.kube/config), or, when there is none or -local is given, a local
// control plane (etcd + kube-apiserver, from package testenv) started for
// the run. An example that needs more of the local control plane — a
// kube-apiserver feature gate, say — asks for it with WithControlPlane;
// a cluster found is used as it is.
package demo
