// Package applyconfig makes the apply configurations of what package
// object sets on typed objects, for children written with Server-Side
// Apply (client.Apply), whose owner references are part of what is
// applied.
//
// It is a package of its own because client-go's apply configurations
// link client-go's discovery and its scheme of every built-in kind, which
// cost a process several MiB of memory and milliseconds of start-up; an
// operator that applies apply configurations links them anyway, others
// need not.
//
//	ref, err := applyconfig.ControllerReference(foo, foo.Namespace, scheme)
//	cm := corev1ac.ConfigMap(foo.Name, foo.Namespace).WithOwnerReferences(ref)
package applyconfig
