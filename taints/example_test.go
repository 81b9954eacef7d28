package taints_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/taints"
)

func ExampleToleration_Tolerates() {
	tol := taints.Toleration{Key: "dedicated", Operator: taints.Equal, Value: "infra", Effect: taints.NoSchedule}
	fmt.Println(tol.Tolerates(taints.Taint{Key: "dedicated", Value: "infra", Effect: taints.NoSchedule}, taints.Options{}))
	fmt.Println(tol.Tolerates(taints.Taint{Key: "dedicated", Value: "gpu", Effect: taints.NoSchedule}, taints.Options{}))

	// Lt and Gt tolerate nothing unless the comparison operators are on.
	sla := taints.Toleration{Key: "example.com/sla", Operator: taints.Gt, Value: "950"}
	taint := taints.Taint{Key: "example.com/sla", Value: "999", Effect: taints.NoSchedule}
	fmt.Println(sla.Tolerates(taint, taints.Options{}))
	fmt.Println(sla.Tolerates(taint, taints.Options{ComparisonOperators: true}))
	// Output:
	// true
	// false
	// false
	// true
}

func ExampleSet_FirstUntolerated() {
	// Compile the daemon pod's tolerations once, defaults included.
	tols := taints.MergeDaemonDefaults([]taints.Toleration{
		{Key: "dedicated", Operator: taints.Equal, Value: "infra", Effect: taints.NoSchedule},
	}, false)
	set := taints.NewSet(tols, taints.Options{})

	// A NotReady node: the default not-ready toleration is NoExecute only.
	node := []taints.Taint{
		{Key: "dedicated", Value: "infra", Effect: taints.NoSchedule},
		{Key: taints.KeyNotReady, Effect: taints.NoExecute},
		{Key: taints.KeyNotReady, Effect: taints.NoSchedule},
	}
	blocking, found := set.FirstUntolerated(node, taints.ScheduleBlocking)
	fmt.Println("shouldRun:", !found, blocking)
	evicting, found := set.FirstUntolerated(node, taints.ExecuteBlocking)
	fmt.Printf("shouldContinueRunning: %v %q\n", !found, evicting.Key)
	// Output:
	// shouldRun: false node.kubernetes.io/not-ready:NoSchedule
	// shouldContinueRunning: true ""
}

func ExampleSet_IndexUntolerated() {
	set := taints.NewSet(taints.MergeDaemonDefaults(nil, false), taints.Options{})
	node := []taints.Taint{
		{Key: "dedicated", Value: "gpu", Effect: taints.PreferNoSchedule},
		{Key: "dedicated", Value: "gpu", Effect: taints.NoSchedule},
	}
	// The index refers to the node's own taint: nothing is copied.
	if i := set.IndexUntolerated(node, taints.ScheduleBlocking); i >= 0 {
		fmt.Println(i, node[i])
	}
	fmt.Println(set.IndexUntolerated(node, taints.ExecuteBlocking))
	// Output:
	// 1 dedicated=gpu:NoSchedule
	// -1
}

func ExampleFindUntolerated() {
	tols := []taints.Toleration{{Key: "dedicated", Operator: taints.Exists}}
	node := []taints.Taint{
		{Key: "dedicated", Value: "infra", Effect: taints.NoSchedule},
		{Key: "example.com/soft", Effect: taints.PreferNoSchedule},
	}
	_, found := taints.FindUntolerated(node, tols, taints.ScheduleBlocking, taints.Options{})
	fmt.Println(found)
	// Output:
	// false
}

func ExampleMergeDaemonDefaults() {
	secs := int64(300)
	user := []taints.Toleration{
		{Key: "dedicated", Operator: taints.Equal, Value: "infra", Effect: taints.NoSchedule},
		// Same identity as the first default: replaced, losing its 300s.
		{Key: taints.KeyNotReady, Operator: taints.Exists, Effect: taints.NoExecute, TolerationSeconds: &secs},
	}
	for _, t := range taints.MergeDaemonDefaults(user, true) {
		fmt.Println(t)
	}
	fmt.Println(user[1]) // the input is unchanged
	// Output:
	// dedicated=infra:NoSchedule
	// node.kubernetes.io/not-ready:NoExecute op=Exists
	// node.kubernetes.io/unreachable:NoExecute op=Exists
	// node.kubernetes.io/disk-pressure:NoSchedule op=Exists
	// node.kubernetes.io/memory-pressure:NoSchedule op=Exists
	// node.kubernetes.io/pid-pressure:NoSchedule op=Exists
	// node.kubernetes.io/unschedulable:NoSchedule op=Exists
	// node.kubernetes.io/network-unavailable:NoSchedule op=Exists
	// node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
}

func ExampleDaemonDefaults() {
	fmt.Println(len(taints.DaemonDefaults(false)), len(taints.DaemonDefaults(true)))
	// Output:
	// 6 7
}

func ExampleValidateTolerations() {
	tols := []taints.Toleration{
		{Key: "ok", Operator: taints.Exists},
		{Operator: taints.Equal, Effect: "Sometimes"},
		{Key: "example.com/gpu-count", Operator: taints.Lt, Value: "08"},
	}
	// Without the TaintTolerationComparisonOperators gate Lt is not
	// supported; with it, its value must be an integer in canonical form.
	for _, gate := range []bool{false, true} {
		errs := taints.ValidateTolerations(tols, taints.Options{ComparisonOperators: gate})
		for _, e := range errs.Prefix("spec.template.spec.tolerations") {
			fmt.Println(e)
		}
	}
	// Output:
	// spec.template.spec.tolerations[1].operator: Invalid value: "Equal": an empty key matches every taint key and requires operator Exists
	// spec.template.spec.tolerations[1].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"
	// spec.template.spec.tolerations[2].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"
	// spec.template.spec.tolerations[1].operator: Invalid value: "Equal": an empty key matches every taint key and requires operator Exists
	// spec.template.spec.tolerations[1].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"
	// spec.template.spec.tolerations[2].value: Invalid value: "08": must be a valid decimal integer in canonical form
}

func ExampleEffectsOf() {
	sel := taints.EffectsOf(taints.NoSchedule, taints.NoExecute)
	fmt.Println(sel, sel == taints.ScheduleBlocking, sel.Has(taints.PreferNoSchedule))
	// Output:
	// NoSchedule|NoExecute true false
}

func ExampleTaint_String() {
	fmt.Println(taints.Taint{Key: "dedicated", Value: "infra", Effect: taints.NoSchedule})
	fmt.Println(taints.Taint{Key: taints.KeyUnschedulable, Effect: taints.NoSchedule})
	// Output:
	// dedicated=infra:NoSchedule
	// node.kubernetes.io/unschedulable:NoSchedule
}
