package shard

import (
	"fmt"
	"hash/fnv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Field is the object field whose hash places an object on the ring, in
// the CEL-style syntax of the API server's ShardSelector.
type Field string

const (
	// UID shards by metadata.uid: objects spread evenly, but an object's
	// children (other uids) land elsewhere.
	UID Field = "object.metadata.uid"
	// Namespace shards by metadata.namespace: a namespace's objects stay
	// together on one replica, at the price of an uneven spread when
	// namespaces differ in size.
	Namespace Field = "object.metadata.namespace"
)

// validate reports whether the API server can shard by f.
func (f Field) validate() error {
	switch f {
	case UID, Namespace:
		return nil
	}
	return fmt.Errorf("shard: field %q: want %q or %q", string(f), string(UID), string(Namespace))
}

// Hash is the position of value on the ring: its 64-bit FNV-1a hash, as
// kube-apiserver computes it for a ShardSelector (KEP-5866).
func Hash(value string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(value)) // a hash.Hash never fails to write
	return h.Sum64()
}

// HashObject is the position of obj on the ring when sharding by field:
// Hash of its uid or of its namespace.
func HashObject(obj metav1.Object, field Field) (uint64, error) {
	switch field {
	case UID:
		return Hash(string(obj.GetUID())), nil
	case Namespace:
		return Hash(obj.GetNamespace()), nil
	}
	return 0, field.validate()
}
