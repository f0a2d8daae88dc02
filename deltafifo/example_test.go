package deltafifo_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/deltafifo"
)

func Example() {
	f := deltafifo.New[*corev1.ConfigMap](nil)
	cm := func(name, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
	}
	_ = f.Replace([]*corev1.ConfigMap{cm("a", "10"), cm("b", "11")}, "11") // the initial list
	_ = f.Update(cm("a", "12"))                                            // after the list
	_ = f.Add(cm("c", "13"))

	for f.Len() > 0 {
		_ = f.Pop(context.Background(), func(b deltafifo.Batch[*corev1.ConfigMap]) error {
			fmt.Println("batch, initial list:", b.InitialList)
			for _, it := range b.Items {
				for _, d := range it.Deltas {
					fmt.Println(" ", it.Key, d.Type, d.Object.ResourceVersion)
				}
			}
			return nil
		})
	}
	fmt.Println("synced:", f.HasSynced(), "store at:", f.LastStoreSyncResourceVersion())
	// Output:
	// batch, initial list: true
	//   default/a Replaced 10
	//   default/b Replaced 11
	// batch, initial list: false
	//   default/a Updated 12
	// batch, initial list: false
	//   default/c Added 13
	// synced: true store at: 13
}
