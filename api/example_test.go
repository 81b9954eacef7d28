package api_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/resource"
)

// Default fills what the API server fills: the strategy, its budgets and
// the history limit. The input is left as it was.
func ExampleDefault() {
	ds := &api.DaemonSet{Name: "agent"}
	d := api.Default(ds)
	ru := d.UpdateStrategy.RollingUpdate
	fmt.Println(d.UpdateStrategy.Type, ru.MaxUnavailable.IntVal, ru.MaxSurge.IntVal, *d.RevisionHistoryLimit)
	fmt.Println("input strategy:", ds.UpdateStrategy.Type == "")
	// Output:
	// RollingUpdate 1 0 10
	// input strategy: true
}

// DeepCopy shares nothing with its receiver.
func ExampleDaemonSet_DeepCopy() {
	ds := &api.DaemonSet{Name: "agent", Annotations: map[string]string{"team": "infra"}}
	c := ds.DeepCopy()
	c.Annotations["team"] = "platform"
	fmt.Println(ds.Annotations["team"], c.Annotations["team"])
	// Output: infra platform
}

// The API server numbers an update from the stored DaemonSet: a new
// template moves both generations, another spec change only
// metadata.generation.
func ExampleBumpGenerations() {
	stored := &api.DaemonSet{Name: "agent", Generation: 3,
		Annotations: map[string]string{api.AnnotationTemplateGeneration: "2"}}
	t := api.BumpGenerations(stored, api.TemplateChanged)
	s := api.BumpGenerations(stored, api.SpecChanged)
	fmt.Println("template:", t.Generation, *api.TemplateGeneration(&t))
	fmt.Println("strategy:", s.Generation, *api.TemplateGeneration(&s))
	fmt.Println("stored:  ", stored.Generation, *api.TemplateGeneration(stored))
	// Output:
	// template: 4 3
	// strategy: 4 2
	// stored:   3 2
}

// A pod that is not yet bound names its node through the affinity the
// controller gives it.
func ExampleTargetNodeName() {
	p := &api.Pod{Name: "agent-x", RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{{
		MatchFields: []api.NodeSelectorRequirement{{Key: api.NodeNameField, Operator: api.SelectorOpIn, Values: []string{"node-7"}}},
	}}}}
	node, err := api.TargetNodeName(p)
	fmt.Println(node, err)
	// Output: node-7 <nil>
}

// A Ready pod is available once it has been Ready for minReadySeconds.
func ExampleIsAvailable() {
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	p := &api.Pod{Ready: true, ReadySince: now.Add(-20 * time.Second)}
	fmt.Println(api.IsAvailable(p, 10, now), api.IsAvailable(p, 30, now))
	// Output: true false
}

// Validation errors carry a field path, a type and the bad value, and
// render as Kubernetes renders them.
func ExampleValidate_fieldErrors() {
	ds := api.Default(&api.DaemonSet{Name: "agent",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "agent"}, RestartPolicy: "Always"}})
	ds.UpdateStrategy.RollingUpdate.MaxSurge = api.Percent("abc%")
	var errs field.ErrorList
	if errors.As(api.Validate(&ds).ToError(), &errs) {
		for _, e := range errs {
			fmt.Println(e.Type, e.Field)
			fmt.Println(e)
		}
	}
	// Output:
	// Invalid spec.updateStrategy.rollingUpdate.maxSurge
	// spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "abc%": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%' or '93%', regex used for validation is '[0-9]+%')
}

func ExampleValidateWith() {
	ds := api.Default(&api.DaemonSet{
		Name:     "agent",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "agent"}},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Int(1), MaxSurge: api.Percent("10%"),
		}},
	})
	fmt.Println(api.Validate(&ds))
	fmt.Println(len(api.ValidateWith(&ds, api.ValidateOptions{AllowSurgeWithUnavailable: true})), "errors with surge and unavailability allowed")
	// Output:
	// spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero
	// 0 errors with surge and unavailability allowed
}

// A node agent with a sidecar: the pod the API server stores requests the
// agent's memory limit (no request was written) and the sidecar's cpu on
// top of the agent's, and binds the metrics port on the node.
func ExamplePodTemplate_Requests() {
	tpl := api.PodTemplate{
		Containers: []api.Container{{
			Name: "agent", Image: "agent:1.0",
			Resources: api.Resources{
				Requests: resource.List{"cpu": resource.MustParse("100m")},
				Limits:   resource.List{"memory": resource.MustParse("128Mi")},
			},
			Ports: []api.ContainerPort{{Name: "metrics", ContainerPort: 9100, HostPort: 9100}},
		}},
		InitContainers: []api.Container{{
			Name: "proxy", Image: "proxy:2", RestartPolicy: api.ContainerRestartPolicyAlways,
			Resources: api.Resources{Requests: resource.List{"cpu": resource.MustParse("0.05")}},
		}},
	}
	fmt.Println(tpl.Requests())
	for _, p := range tpl.HostPorts() {
		fmt.Println(p.Name, p.HostPort)
	}
	// Output:
	// cpu=150m,memory=128Mi
	// metrics 9100
}

// HostPorts lists what the scheduler's port filter reads: sidecars' and
// regular containers' ports with a host port.
func ExamplePodTemplate_HostPorts() {
	tpl := api.PodTemplate{
		HostNetwork: true,
		Containers:  []api.Container{{Name: "exporter", Ports: []api.ContainerPort{{ContainerPort: 9100}, {ContainerPort: 9101, Protocol: "UDP"}}}},
	}
	for _, p := range tpl.HostPorts() {
		fmt.Printf("%d/%q\n", p.HostPort, p.Protocol)
	}
	// Output:
	// 9100/""
	// 9101/"UDP"
}

// A snapshot lists each node once: a repeated name, an empty one or one
// that is not UTF-8 is refused with the input's index.
func ExampleValidateNodes() {
	nodes := []api.Node{{Name: "a"}, {Name: "b"}, {Name: "a"}, {Name: "c\xff"}}
	for _, e := range api.ValidateNodes(nodes) {
		fmt.Println(e)
	}
	// Output:
	// nodes[2].name: Duplicate value: "a": also nodes[0]
	// nodes[3].name: Invalid value: "c\xff": must be valid UTF-8
}

// A node needs a name, in UTF-8; whether it repeats is the list's
// business (ValidateNodes).
func ExampleNodeWellFormed() {
	for _, n := range []api.Node{{Name: "node-1"}, {Name: ""}, {Name: "n\xff"}} {
		fmt.Printf("%q %v\n", n.Name, api.NodeWellFormed(&n))
	}
	// Output:
	// "node-1" true
	// "" false
	// "n\xff" false
}

// A pod needs a name, and its namespace, name, UID and node name in UTF-8;
// whether it repeats is the list's business (ValidatePods).
func ExamplePodWellFormed() {
	for _, p := range []api.Pod{
		{Namespace: "ns", Name: "agent-1", UID: "u1", NodeName: "node-1"},
		{Namespace: "ns", UID: "u2"},
		{Namespace: "ns", Name: "agent-3", NodeName: "node-\xff"},
	} {
		fmt.Printf("%q %v\n", p.Name, api.PodWellFormed(&p))
	}
	// Output:
	// "agent-1" true
	// "" false
	// "agent-3" false
}

// Pods are the same pod when they share namespace and name, or UID.
func ExampleValidatePods() {
	pods := []api.Pod{
		{Namespace: "ns", Name: "agent-1", UID: "u1"},
		{Namespace: "other", Name: "agent-1", UID: "u2"},
		{Namespace: "ns", Name: "agent-2", UID: "u1"},
	}
	for _, e := range api.ValidatePods(pods) {
		fmt.Println(e)
	}
	// Output:
	// pods[2].uid: Duplicate value: "u1": also pods[0]
}

func ExampleValidateTolerations() {
	tols := []api.Toleration{
		{Key: "ok", Operator: api.TolerationOpExists},
		{Operator: api.TolerationOpEqual, Effect: "Sometimes"},
		{Key: "example.com/gpu-count", Operator: api.TolerationOpLt, Value: "08"},
	}
	// Without the TaintTolerationComparisonOperators gate Lt is not
	// supported; with it, its value must be an integer in canonical form.
	for _, gate := range []bool{false, true} {
		errs := api.ValidateTolerations(tols, api.ValidateOptions{ComparisonOperators: gate})
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

func ExampleTaint_String() {
	fmt.Println(api.Taint{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule})
	fmt.Println(api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule})
	// Output:
	// dedicated=infra:NoSchedule
	// node.kubernetes.io/unschedulable:NoSchedule
}

func ExampleValidateNodeSelector() {
	errs := api.ValidateNodeSelector(&api.NodeSelector{Terms: []api.NodeSelectorTerm{{
		MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.uid", Operator: api.SelectorOpIn, Values: []string{"x"}}},
	}}})
	fmt.Println(errs.Prefix("spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"))
	// Output:
	// spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key
}

func ExampleValidateLabelKey() {
	fmt.Println(api.ValidateLabelKey("example.com/app"))
	fmt.Println(len(api.ValidateLabelKey("a/b/c")))
	// Output:
	// []
	// 1
}

func ExampleValidateLabelSelector() {
	sel := &api.LabelSelector{
		MatchLabels: map[string]string{"app": "agent"},
		MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "tier", Operator: api.SelectorOpIn},
			{Key: "canary", Operator: api.SelectorOpDoesNotExist, Values: []string{"true"}},
		},
	}
	for _, e := range api.ValidateLabelSelector(sel).Prefix("spec.selector") {
		fmt.Println(e)
	}
	// Output:
	// spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'
	// spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'
}

func ExampleValidateLabelValues() {
	p := field.NewPath("spec", "selector", "matchExpressions").Index(0).Child("values")
	for _, e := range api.ValidateLabelValues(p, []string{"ok", "-bad"}) {
		fmt.Println(e.Field, e.BadValue)
	}
	// Output:
	// spec.selector.matchExpressions[0].values[1] -bad
}
