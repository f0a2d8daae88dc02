// Package conversion serves the conversion webhook of custom resources
// whose CRD declares several versions: the API server stores an object in
// one version and asks the webhook to convert it whenever a client reads
// or writes it in another.
//
// # Hub and spoke
//
// A kind with n versions would need n×(n-1) conversion functions between
// them. Instead one version, the hub, is the meeting point: its Go type
// has a Hub() method, and the Go type of every other version, a spoke, is
// Convertible, converting itself to the hub (ConvertTo) and from the hub
// (ConvertFrom). A conversion between two spokes goes spoke -> hub ->
// spoke, so each new version adds two functions and touches no other
// version. The hub is usually the storage version, and should be able to
// hold every field of every version. CheckKind checks that a kind is set
// up this way; package conversiontest checks, with random objects, that
// every spoke survives the trip to the hub and back.
//
// NewHandler returns one http.Handler for every kind in a scheme. It
// answers apiextensions.k8s.io/v1 ConversionReviews: it decodes each
// object into the Go type the scheme registers for its apiVersion and
// kind, converts it, and returns the objects in the order they came.
// An object already in the desired version is returned byte for byte.
// If one object cannot be converted — an unknown kind, JSON its type
// rejects, a conversion function's error, or its panic, which is
// recovered and logged with its stack — the review fails as a whole with
// a message naming the object, both versions and the cause, and the API
// server returns that message to its client.
//
// # Metadata
//
// The API server accepts only labels and annotations from a conversion:
// a converted object with another name, namespace or UID is an error, and
// the rest of its metadata is replaced by the original's. The handler
// does the same before answering, so a conversion cannot fail that way:
// the converted object gets the original's metadata, with the labels and
// annotations the conversion left, where a conversion can keep fields the
// other version lacks. A conversion that never copies metadata (its
// result's metadata is entirely empty) keeps the original's labels and
// annotations too. Go types must embed metav1.ObjectMeta, as kubebuilder
// generates them.
//
// # Declaring the webhook
//
// The CRD names the webhook and the review version this package speaks:
//
//	spec:
//	  conversion:
//	    strategy: Webhook
//	    webhook:
//	      conversionReviewVersions: ["v1"]
//	      clientConfig:
//	        service:
//	          namespace: my-operator-system
//	          name: my-operator-webhook-service
//	          path: /convert
//	        caBundle: ... # or cert-manager's cainjector annotation
//
// and the operator mounts the handler at that path on its webhook server,
// after checking its kinds:
//
//	if err := conversion.CheckKind(scheme, widgetGroupKind); err != nil {
//		return err
//	}
//	if err := srv.Handle("/convert", conversion.NewHandler(scheme)); err != nil {
//		return err
//	}
//
// # Compared with controller-runtime
//
// Hub and Convertible have the method names and signatures of
// controller-runtime's conversion.Hub and conversion.Convertible, so the
// API types of a kubebuilder project port by changing one import. What
// differs is around them: the review types are declared here rather than
// imported from k8s.io/apiextensions-apiserver; objects are decoded
// straight into their Go types, case-sensitively like the API server; an
// object already in the desired version is returned untouched; metadata
// is restored as the API server would (above); and CheckKind and package
// conversiontest check a kind's conversions before a cluster does.
package conversion
