package object_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/object"
)

func ExampleKey() {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0"}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	fmt.Println(object.Key(pod))
	fmt.Println(object.Key(node))
	// Output:
	// shop/web-0
	// node-1
}

func ExampleParseKey() {
	n := object.ParseKey("shop/web-0")
	fmt.Printf("namespace %q, name %q\n", n.Namespace, n.Name)
	n = object.ParseKey("node-1")
	fmt.Printf("namespace %q, name %q\n", n.Namespace, n.Name)
	// Output:
	// namespace "shop", name "web-0"
	// namespace "", name "node-1"
}
