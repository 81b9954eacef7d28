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

func ExampleVersion_Hash() {
	template := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "registry.example.com/agent:v1"}}},
	}
	// PodTemplateSpec gains fields every release, and upstream's hash
	// covers them all: each version names the same template differently.
	// (This is testdata/hash/templates/minimal.json; the goldens agree.)
	for _, v := range upstream.Versions() {
		h, err := v.Hash(template, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(v, h)
	}
	// Output:
	// 1.34 6bd84f7cd5
	// 1.35 5cdcbdb774
	// 1.36 6bb65bdf87
	// 1.37 d755b7657
}

func ExampleParseVersion() {
	for _, s := range []string{"v1.36.4", "1.37", "1.33"} {
		v, err := upstream.ParseVersion(s)
		fmt.Println(v, err)
	}
	// Output:
	// 1.36 <nil>
	// 1.37 <nil>
	// Version(0) kubernetes version "1.33": unsupported Kubernetes version; supported: 1.34, 1.35, 1.36, 1.37
}

func ExampleStoredData() {
	printedByKubectl := []byte("{\n  \"spec\": {\n    \"template\": {}\n  }\n}")
	fmt.Println(string(upstream.StoredData(printedByKubectl)))
	// Output:
	// {"spec":{"template":{}}}
}
