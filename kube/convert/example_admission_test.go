package convert_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/kube/convert"
)

func exampleLimitRange() *corev1.LimitRange {
	return &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "defaults"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type:    corev1.LimitTypeContainer,
			Default: corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse("500m")},
		}}},
	}
}

func examplePriorityClass() *schedulingv1.PriorityClass {
	never := corev1.PreemptNever
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Value: 10, PreemptionPolicy: &never}
}

func exampleRuntimeClass() *nodev1.RuntimeClass {
	return &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
		Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceMemory: apiresource.MustParse("120Mi")}},
	}
}

func ExampleLimitRange() {
	lr, err := convert.LimitRange(exampleLimitRange())
	fmt.Println(lr.Namespace, lr.Name, lr.Limits[0].Type, lr.Limits[0].Default, err)
	// Output:
	// monitoring defaults Container cpu=500m <nil>
}

func ExamplePriorityClass() {
	pc := convert.PriorityClass(examplePriorityClass())
	fmt.Println(pc.Name, pc.Value, pc.PreemptionPolicy)
	// Output:
	// batch 10 Never
}

func ExampleRuntimeClass() {
	rc, err := convert.RuntimeClass(exampleRuntimeClass())
	fmt.Println(rc.Name, rc.Overhead, err)
	// Output:
	// kata memory=120Mi <nil>
}

// The objects admission reads, converted at once for admission.Compile.
func ExampleAdmissionObjects() {
	objs, err := convert.AdmissionObjects(
		[]*corev1.LimitRange{exampleLimitRange()},
		[]*schedulingv1.PriorityClass{examplePriorityClass()},
		[]*nodev1.RuntimeClass{exampleRuntimeClass()},
	)
	fmt.Println(len(objs.LimitRanges), len(objs.PriorityClasses), len(objs.RuntimeClasses), err)
	// Output:
	// 1 1 1 <nil>
}

func ExampleDisruptionBudget() {
	b := convert.DisruptionBudget(&policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1, DisruptedPods: map[string]metav1.Time{
			"web-b": {}, "web-a": {},
		}},
	})
	fmt.Println(b.Namespace, b.Name, b.Selector.MatchLabels, b.DisruptionsAllowed, b.DisruptedPods)
	// Output:
	// shop web map[app:web] 1 [web-a web-b]
}

// A pod bound to a node, as preemption reads it.
func ExamplePodUsage() {
	prio := int32(100)
	started := metav1.NewTime(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	u, err := convert.PodUsage(&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-a", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Priority: &prio, Containers: []corev1.Container{{
			Name: "web", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse("1")}},
			Ports: []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080}},
		}}},
		Status: corev1.PodStatus{StartTime: &started},
	})
	fmt.Println(u.Namespace, u.Name, u.Priority, u.Requests, u.HostPorts[0].HostPort, u.StartTime.Format(time.RFC3339), err)
	// Output:
	// shop web-a 100 cpu=1 8080 2026-01-01T12:00:00Z <nil>
}
