package fieldcodec

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The kinds below are custom resources' Go types as kubebuilder users
// write them, with every field type the codec has a form for.

// gizmo is a kind with a big spec and status.
type gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              gizmoSpec   `json:"spec,omitempty"`
	Status            gizmoStatus `json:"status,omitempty"`
}

type gizmoSpec struct {
	Replicas  *int32                       `json:"replicas,omitempty"`
	Paused    bool                         `json:"paused,omitempty"`
	Image     string                       `json:"image"`
	Ratio     float64                      `json:"ratio,omitempty"`
	Weight    float32                      `json:"weight"`
	Small     int8                         `json:"small"`
	Big       uint64                       `json:"big"`
	Port16    uint16                       `json:"port16,omitempty"`
	Size      resource.Quantity            `json:"size,omitempty"`
	Port      intstr.IntOrString           `json:"port"`
	MaybePort *intstr.IntOrString          `json:"maybePort,omitempty"`
	Timeout   metav1.Duration              `json:"timeout"`
	Deadline  *metav1.Time                 `json:"deadline,omitempty"`
	Env       []corev1.EnvVar              `json:"env,omitempty"`
	Resources corev1.ResourceRequirements  `json:"resources,omitempty"`
	Selector  *metav1.LabelSelector        `json:"selector,omitempty"`
	Backends  map[string]backend           `json:"backends,omitempty"`
	Weights   map[int32]string             `json:"weights,omitempty"`
	Shards    map[uint8]*backend           `json:"shards,omitempty"`
	Tags      []string                     `json:"tags,omitempty"`
	Names     []string                     `json:"names"`
	Matrix    [][]int                      `json:"matrix"`
	Blob      []byte                       `json:"blob,omitempty"`
	Fixed     [3]int16                     `json:"fixed"`
	Config    runtime.RawExtension         `json:"config,omitempty"`
	Tree      *node                        `json:"tree,omitempty"`
	Labels    labels                       `json:"labels,omitempty"`
	Sized     map[string]resource.Quantity `json:"sized,omitempty"`
	Extra     `json:",inline"`
	Ignored   string `json:"-"`
	//lint:ignore U1000 an unexported field, left out as by JSON
	hidden string
}

type backend struct {
	Host    string            `json:"host"`
	Port    int32             `json:"port,omitempty"`
	Weights map[string]string `json:"weights,omitempty"`
	Empty   struct{}          `json:"empty"`
}

// node is a recursive type.
type node struct {
	Name     string `json:"name"`
	Children []node `json:"children,omitempty"`
	Next     *node  `json:"next,omitempty"`
}

// labels is a named map of strings.
type labels map[string]string

// Extra is embedded: its fields are the spec's in JSON.
type Extra struct {
	Mode  string `json:"mode,omitempty"`
	Level int    `json:"level,omitempty"`
}

type gizmoStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Phase              string             `json:"phase,omitempty"`
	LastSeen           metav1.MicroTime   `json:"lastSeen,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	Ready              *bool              `json:"ready,omitempty"`
}

// widget is the bench's custom resource: a map of data.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Data map[string]string `json:"data,omitempty"`
	} `json:"spec,omitempty"`
	Status struct {
		ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	} `json:"status,omitempty"`
}

// blob holds raw JSON and managed fields.
type blob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Data              runtime.RawExtension            `json:"data"`
	More              []runtime.RawExtension          `json:"more,omitempty"`
	ByName            map[string]runtime.RawExtension `json:"byName,omitempty"`
	Events            []corev1.EventSeries            `json:"events,omitempty"`
}
