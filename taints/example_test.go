package taints_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/taints"
)

func ExampleTolerates() {
	tol := api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule}
	fmt.Println(taints.Tolerates(tol, api.Taint{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule}, taints.Options{}))
	fmt.Println(taints.Tolerates(tol, api.Taint{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}, taints.Options{}))

	// Lt and Gt tolerate nothing unless the comparison operators are on.
	sla := api.Toleration{Key: "example.com/sla", Operator: api.TolerationOpGt, Value: "950"}
	taint := api.Taint{Key: "example.com/sla", Value: "999", Effect: api.TaintEffectNoSchedule}
	fmt.Println(taints.Tolerates(sla, taint, taints.Options{}))
	fmt.Println(taints.Tolerates(sla, taint, taints.Options{ComparisonOperators: true}))
	// Output:
	// true
	// false
	// false
	// true
}

func ExampleSet_FirstUntolerated() {
	// Compile the daemon pod's tolerations once, defaults included.
	tols := taints.MergeDaemonDefaults([]api.Toleration{
		{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule},
	}, false)
	set := taints.NewSet(tols, taints.Options{})

	// A NotReady node: the default not-ready toleration is NoExecute only.
	node := []api.Taint{
		{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoSchedule},
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
	node := []api.Taint{
		{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectPreferNoSchedule},
		{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule},
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
	tols := []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpExists}}
	node := []api.Taint{
		{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule},
		{Key: "example.com/soft", Effect: api.TaintEffectPreferNoSchedule},
	}
	_, found := taints.FindUntolerated(node, tols, taints.ScheduleBlocking, taints.Options{})
	fmt.Println(found)
	// Output:
	// false
}

func ExampleMergeDaemonDefaults() {
	secs := int64(300)
	user := []api.Toleration{
		{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule},
		// Same identity as the first default: replaced, losing its 300s.
		{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &secs},
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

func ExampleEffectsOf() {
	sel := taints.EffectsOf(api.TaintEffectNoSchedule, api.TaintEffectNoExecute)
	fmt.Println(sel, sel == taints.ScheduleBlocking, sel.Has(api.TaintEffectPreferNoSchedule))
	// Output:
	// NoSchedule|NoExecute true false
}
