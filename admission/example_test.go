package admission_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/resource"
)

// A node agent with limits only, in a namespace with a LimitRange, at
// system-node-critical priority and a sandboxed runtime: what the stored pod
// requests is not what its template says.
func ExampleRules_Admit() {
	rules, err := admission.Compile(admission.ClusterObjects{
		LimitRanges: []admission.LimitRange{{Namespace: "monitoring", Name: "defaults", Limits: []admission.LimitRangeItem{{
			Type:           admission.LimitTypeContainer,
			Default:        resource.List{"cpu": resource.MustParse("500m"), "memory": resource.MustParse("512Mi")},
			DefaultRequest: resource.List{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("128Mi")},
		}}}},
		RuntimeClasses: []admission.RuntimeClass{{Name: "kata", Overhead: resource.List{"cpu": resource.MustParse("250m"), "memory": resource.MustParse("160Mi")}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tpl := api.PodTemplate{
		PriorityClassName: admission.SystemNodeCritical,
		RuntimeClassName:  "kata",
		Containers: []api.Container{{Name: "agent", Resources: api.Resources{
			Limits: resource.List{"cpu": resource.MustParse("1")},
		}}},
	}
	a := rules.Admit("monitoring", &tpl)
	fmt.Println("template requests:", tpl.Requests())
	fmt.Println("stored pod requests:", a.Template.Requests())
	fmt.Println("priority:", a.Priority, a.PreemptionPolicy)
	fmt.Println("refused:", len(a.Refused) > 0)

	tpl.PriorityClassName = "agents"
	fmt.Println(rules.Admit("monitoring", &tpl).Refused)
	// Output:
	// template requests: cpu=1
	// stored pod requests: cpu=1250m,memory=288Mi
	// priority: 2000001000 PreemptLowerPriority
	// refused: false
	// spec.priorityClassName: Forbidden: no PriorityClass with name agents was found
}

// Compile reports every problem of the objects with its path.
func ExampleCompile() {
	_, err := admission.Compile(admission.ClusterObjects{
		PriorityClasses: []admission.PriorityClass{{Name: "high", Value: 1000}, {Name: "high", Value: 10}},
		RuntimeClasses:  []admission.RuntimeClass{{Overhead: resource.List{"cpu": resource.MustParse("10m")}}},
	})
	fmt.Println(err)
	// Output:
	// [priorityClasses[1].metadata.name: Duplicate value: "high", runtimeClasses[0].metadata.name: Required value: a RuntimeClass needs a name]
}
