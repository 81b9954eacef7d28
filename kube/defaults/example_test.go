package defaults_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/kube/defaults"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// A DaemonSet as written gets the defaults the API server stores, and so
// the revision hash the controller will use.
func ExampleDaemonSet() {
	var ds appsv1.DaemonSet
	err := yaml.Unmarshal([]byte(`
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "busybox"}]
      volumes: [{name: logs, hostPath: {path: /var/log}}]
`), &ds)
	if err != nil {
		panic(err)
	}
	out, err := defaults.DaemonSet(&ds, upstream.V1_37)
	if err != nil {
		panic(err)
	}
	s := out.Spec
	c := s.Template.Spec.Containers[0]
	fmt.Println(s.UpdateStrategy.Type, s.UpdateStrategy.RollingUpdate.MaxUnavailable, s.UpdateStrategy.RollingUpdate.MaxSurge, *s.RevisionHistoryLimit)
	fmt.Println(c.ImagePullPolicy, c.TerminationMessagePath, c.TerminationMessagePolicy)
	fmt.Println(s.Template.Spec.DNSPolicy, s.Template.Spec.RestartPolicy, s.Template.Spec.SchedulerName, *s.Template.Spec.TerminationGracePeriodSeconds)
	fmt.Printf("hostPath type %q\n", *s.Template.Spec.Volumes[0].HostPath.Type)
	before, _ := upstream.V1_37.Hash(&ds.Spec.Template, nil)
	after, _ := upstream.V1_37.Hash(&s.Template, nil)
	fmt.Println("hash as written", before, "stored", after)
	// Output:
	// RollingUpdate 1 0 10
	// Always /dev/termination-log File
	// ClusterFirst Always default-scheduler 30
	// hostPath type ""
	// hash as written f789964fb stored 57f6c44d67
}

// Created adds what a create stores besides the defaults.
func ExampleCreated() {
	ds := &appsv1.DaemonSet{}
	out, err := defaults.Created(ds, upstream.V1_37)
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Generation, out.Annotations)
	// Output:
	// 1 map[deprecated.daemonset.template.generation:1]
}

// A node written without allocatable resources has its capacity.
func ExampleNode() {
	n := &corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}
	fmt.Println(defaults.Node(n).Status.Allocatable.Cpu())
	// Output:
	// 4
}
