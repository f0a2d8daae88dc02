// Package certs gives an operator's webhook server certificates it
// manages itself: a CA and a serving certificate kept in a Secret, the CA
// bundle injected into the webhook configurations and CRDs the API server
// calls the server through, and both rotated before they expire without a
// single failed call.
//
// An Authority runs on every replica of the operator (it does not need
// leader election). The first replica to start creates the Secret; the
// others, and replicas started later, read it and serve the same
// certificate. Every replica watches the Secret, so a new certificate is
// served within moments of being written, and presents it through
// GetCertificate, a tls.Config.GetCertificate for the webhook server.
// Ready tells a readiness probe when the API server can call this
// replica: it presents a certificate and every named configuration and
// CRD carries a bundle holding the CA that signed it.
//
//	a, err := certs.New(cfg, types.NamespacedName{Namespace: "system", Name: "webhook-certs"},
//		certs.WithHosts("webhook", "webhook.system", "webhook.system.svc", "webhook.system.svc.cluster.local"),
//		certs.WithValidatingWebhooks("my-operator-validating"),
//		certs.WithCRDs("widgets.example.com"))
//
// # The Secret
//
// The Secret (type kubernetes.io/tls when the Authority creates it; an
// Opaque one made beforehand is used as it is) holds the serving pair in
// tls.crt and tls.key, the bundle in ca.crt (the newest CA first, then the
// previous one while a rotation is under way) and the newest CA's key in
// ca.key. Keys are ECDSA P-256. Certificates start a little in the past,
// for clients whose clock is behind, and a serving certificate never
// outlives the CA that signed it. The annotation AnnotationCAAdded records
// when the newest CA joined the bundle. If the Secret is deleted, a
// replica recreates it from what it last read.
//
// Replicas coordinate through the Secret's resourceVersion alone: each
// may write, an update carries the version it was computed from, and the
// loser of a race reads the winner's Secret and goes on from there.
// Likewise each webhook configuration and CRD records, in the annotation
// AnnotationSecretVersion, the version of the Secret its bundle came from,
// and a replica never replaces a bundle with one from an older Secret.
//
// # Rotation
//
// Each replica checks on every change of the Secret, on a timer (a
// fiftieth of the validity, between a second and a minute) and when a rule
// below comes due. With V the
// validity (WithValidity, one year by default) and P the propagation
// delay, a tenth of V between one second and two minutes:
//
//	t = 0         CA1 made, serving S1 from CA1            bundle [CA1]
//	t = 2V/3      CA1 has V/3 left: CA2 made, S1 kept      bundle [CA2 CA1]
//	t = 2V/3 + P  CA2 injected everywhere for P: S2 from CA2
//	t = V         CA1 expired, dropped                     bundle [CA2]
//	t = 4V/3      CA2 has V/3 left: CA3 made, S2 kept      bundle [CA3 CA2]
//	...
//
// The rules, in order: a new CA when the newest has less than a third of
// its validity left (the bundle becomes the new CA and the current one);
// a serving certificate from the newest CA once that CA has been in the
// bundle, and the bundle in every existing target as this replica saw
// it, for P; a new serving certificate when the current one, signed by
// the newest CA, has less than a third of its validity left; expired CAs
// out of the bundle. Hence the bundle the API server trusts always holds
// the CA of every certificate any replica may present. A serving
// certificate that would expire before a new CA propagates is replaced
// anyway, the way out when injection is blocked for long; a target that
// does not exist does not hold rotation up, since no call goes through it.
//
// # Permissions
//
// The Authority needs, in the Secret's namespace and cluster-wide:
//
//	apiVersion: rbac.authorization.k8s.io/v1
//	kind: Role
//	metadata: {name: webhook-certs, namespace: system}
//	rules:
//	- apiGroups: [""]
//	  resources: [secrets]
//	  verbs: [get, list, watch, create, update]
//	---
//	apiVersion: rbac.authorization.k8s.io/v1
//	kind: ClusterRole
//	metadata: {name: webhook-certs}
//	rules:
//	- apiGroups: [admissionregistration.k8s.io]
//	  resources: [validatingwebhookconfigurations, mutatingwebhookconfigurations]
//	  verbs: [get, update]
//	- apiGroups: [apiextensions.k8s.io]
//	  resources: [customresourcedefinitions]
//	  verbs: [get, update]
//
// resourceNames may narrow the rules to the objects named, except for
// create, which cannot be checked against a name (the watch asks for the
// Secret by name, so it passes a narrowed rule).
//
// # With cert-manager instead
//
// An Authority is opt-in. By default the webhook server reads tls.crt and
// tls.key from a mounted Secret, which cert-manager's Certificate fills
// and renews, and cert-manager's CA injector fills the caBundle of
// configurations and CRDs annotated cert-manager.io/inject-ca-from.
// Clusters that run cert-manager should keep doing so and create no
// Authority; one without it, or an operator that must not depend on it,
// creates one and hands GetCertificate to the server.
//
// # Compared with others
//
// controller-runtime serves the certificate files it is given and leaves
// making and renewing them to cert-manager or to code of one's own; its
// issue #3038, asking for webhooks without cert-manager, is open. The
// open-policy-agent/cert-controller rotator generates RSA keys into a
// Secret that must exist beforehand, and at rotation replaces the CA and
// the serving certificate in one write and injects the new CA alone, so
// until every replica and API server catches up some calls fail; replicas
// read the certificate from files the kubelet syncs, often a minute late,
// or restart. Here the CA changes first, the serving certificate follows
// once the new bundle is in place, the previous CA stays trusted
// meanwhile, and certificates reach the server from memory.
package certs
