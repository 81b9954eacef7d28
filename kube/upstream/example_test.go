package upstream_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/kube/upstream"
)

func ExampleRevisionData() {
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
	}}}
	data, _ := upstream.RevisionData(ds)
	fmt.Println(string(data))
	// Output:
	// {"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent"}},"spec":{"containers":null}}}}
}

func ExampleHash() {
	template := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
	}
	one := int32(1)
	// The hash depends on every field of the compiled k8s.io/api types: a
	// change of Kubernetes minor may change it.
	fmt.Println(upstream.Hash(template, nil))
	fmt.Println(upstream.Hash(template, &one))
	// Output:
	// d4454bbf
	// b7878f79b
}

func ExampleStoredData() {
	printedByKubectl := []byte("{\n  \"spec\": {\n    \"template\": {}\n  }\n}")
	fmt.Println(string(upstream.StoredData(printedByKubectl)))
	// Output:
	// {"spec":{"template":{}}}
}
