package cluster

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// cborable is a custom resource's Go type that travels as CBOR unchanged.
type cborable struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              map[string]string `json:"spec,omitempty"`
}

func (c *cborable) DeepCopyObject() runtime.Object {
	out := *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

type cborableList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []cborable `json:"items"`
}

func (l *cborableList) DeepCopyObject() runtime.Object {
	out := *l
	out.Items = append([]cborable(nil), l.Items...)
	return &out
}

// A group version eligible for CBOR is preferred as CBOR only with fast
// paths on (and WithCBOR, the default).
func TestPrefersCBORNeedsFastPaths(t *testing.T) {
	t.Setenv(FastPathsEnv, "")
	gv := schema.GroupVersion{Group: "fastpaths.cluster.steady.dev", Version: "v1"}
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(gv.WithKind("Cborable"), &cborable{})
	scheme.AddKnownTypeWithName(gv.WithKind("CborableList"), &cborableList{})
	metav1.AddToGroupVersion(scheme, gv)
	for _, tc := range []struct {
		name string
		opts []Option
		want bool
	}{
		{name: "default", want: true},
		{name: "WithFastPaths(true)", opts: []Option{WithFastPaths(true)}, want: true},
		{name: "WithFastPaths(false)", opts: []Option{WithFastPaths(false)}},
		{name: "WithFastPaths(false), WithCBOR(true)", opts: []Option{WithFastPaths(false), WithCBOR(true)}},
		{name: "WithCBOR(false)", opts: []Option{WithCBOR(false)}},
	} {
		c, err := New(&rest.Config{Host: "https://127.0.0.1:1"}, append(tc.opts, WithScheme(scheme))...)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.prefersCBOR(gv); got != tc.want {
			t.Errorf("%s: prefersCBOR(%s) = %v, want %v", tc.name, gv, got, tc.want)
		}
	}
}
