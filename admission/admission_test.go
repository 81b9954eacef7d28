package admission_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/resource"
)

func list(kv ...string) resource.List {
	out := resource.List{}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i]] = resource.MustParse(kv[i+1])
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// got is what a test reads of an Admitted: the first container's
// resources, the effective requests, priority and policy, and the
// refusals as type and field.
type got struct {
	Container        api.Resources
	Requests         string
	Overhead         string
	ClassName        string
	Priority         int32
	PreemptionPolicy string
	Refused          []string
}

func summarize(a admission.Admitted) got {
	g := got{
		Requests: a.Template.Requests().String(), Overhead: a.Template.Overhead.String(),
		ClassName: a.Template.PriorityClassName, Priority: a.Priority, PreemptionPolicy: a.PreemptionPolicy,
	}
	if len(a.Template.Containers) > 0 {
		g.Container = a.Template.Containers[0].Resources
	}
	if a.Template.Priority == nil || *a.Template.Priority != a.Priority {
		g.Refused = append(g.Refused, "template priority not set")
	}
	for _, e := range a.Refused {
		g.Refused = append(g.Refused, e.Type.String()+" "+e.Field)
	}
	return g
}

func one(req, lim resource.List) []api.Container {
	return []api.Container{{Name: "main", Resources: api.Resources{Requests: req, Limits: lim}}}
}

var quantityCmp = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Equal(b) && a.String() == b.String() })

func TestAdmit(t *testing.T) {
	objects := admission.ClusterObjects{
		LimitRanges: []admission.LimitRange{
			{Namespace: "team", Name: "b-defaults", Limits: []admission.LimitRangeItem{
				{Type: admission.LimitTypeContainer, Default: list("cpu", "500m", "memory", "256Mi"), DefaultRequest: list("cpu", "100m")},
			}},
			{Namespace: "team", Name: "a-memory", Limits: []admission.LimitRangeItem{
				{Type: admission.LimitTypeContainer, DefaultRequest: list("memory", "64Mi")},
				{Type: admission.LimitTypePod, Max: list("cpu", "4")},
			}},
			{Namespace: "bounded", Name: "max", Limits: []admission.LimitRangeItem{
				{Type: admission.LimitTypeContainer, Max: list("cpu", "1"), Min: list("memory", "32Mi")},
			}},
			{Namespace: "pods", Name: "pod-max", Limits: []admission.LimitRangeItem{
				{Type: admission.LimitTypePod, Max: list("memory", "1Gi")},
				{Type: admission.LimitTypeContainer, MaxLimitRequestRatio: list("cpu", "2")},
			}},
		},
		PriorityClasses: []admission.PriorityClass{
			{Name: "high", Value: 1000},
			{Name: "batch", Value: 10, PreemptionPolicy: api.PreemptNever},
		},
		RuntimeClasses: []admission.RuntimeClass{
			{Name: "kata", Overhead: list("cpu", "250m", "memory", "120Mi")},
			{Name: "runc"},
		},
	}
	withDefault := objects
	withDefault.PriorityClasses = append([]admission.PriorityClass{
		{Name: "default-b", Value: 7, GlobalDefault: true},
		{Name: "default-a", Value: 5, GlobalDefault: true},
	}, objects.PriorityClasses...)
	tests := []struct {
		name, reason string
		objects      admission.ClusterObjects
		namespace    string
		template     api.PodTemplate
		want         got
	}{{
		name:      "no LimitRange in the namespace",
		reason:    "defaults apply only in their own namespace; priority 0 without a default class",
		namespace: "other",
		template:  api.PodTemplate{Containers: one(nil, list("cpu", "1"))},
		want: got{
			Container: api.Resources{Requests: list("cpu", "1"), Limits: list("cpu", "1")},
			Requests:  "cpu=1", PreemptionPolicy: api.PreemptLowerPriority,
		},
	}, {
		name:      "empty container takes every default",
		reason:    "LimitRanger fills limits and requests from every LimitRange, in name order",
		namespace: "team",
		template:  api.PodTemplate{Containers: one(nil, nil)},
		want: got{
			Container: api.Resources{Requests: list("cpu", "100m", "memory", "64Mi"), Limits: list("cpu", "500m", "memory", "256Mi")},
			Requests:  "cpu=100m,memory=64Mi", PreemptionPolicy: api.PreemptLowerPriority,
		},
	}, {
		name:      "limit without request keeps the limit as request",
		reason:    "the API server's defaulting runs before LimitRanger, so defaultRequest never replaces a limit-derived request (Karpenter #1573)",
		namespace: "team",
		template:  api.PodTemplate{Containers: one(nil, list("cpu", "2"))},
		want: got{
			Container: api.Resources{Requests: list("cpu", "2", "memory", "64Mi"), Limits: list("cpu", "2", "memory", "256Mi")},
			Requests:  "cpu=2,memory=64Mi", PreemptionPolicy: api.PreemptLowerPriority,
		},
	}, {
		name:      "zero request stays",
		reason:    "a request present, even 0, is not defaulted",
		namespace: "team",
		template:  api.PodTemplate{Containers: one(list("cpu", "0"), nil)},
		want: got{
			Container: api.Resources{Requests: list("cpu", "0", "memory", "64Mi"), Limits: list("cpu", "500m", "memory", "256Mi")},
			Requests:  "cpu=0,memory=64Mi", PreemptionPolicy: api.PreemptLowerPriority,
		},
	}, {
		name:      "default limit below the request refuses the pod",
		reason:    "validation after admission: a request above its limit",
		namespace: "team",
		template:  api.PodTemplate{Containers: one(list("cpu", "1"), nil)},
		want: got{
			Container: api.Resources{Requests: list("cpu", "1", "memory", "64Mi"), Limits: list("cpu", "500m", "memory", "256Mi")},
			Requests:  "cpu=1,memory=64Mi", PreemptionPolicy: api.PreemptLowerPriority,
			Refused: []string{"Invalid spec.containers[0].resources.requests[cpu]"},
		},
	}, {
		name:      "max becomes the default limit, min the default request",
		reason:    "SetDefaults_LimitRangeItem on the stored LimitRange",
		namespace: "bounded",
		template:  api.PodTemplate{Containers: one(nil, nil)},
		want: got{
			Container: api.Resources{Requests: list("cpu", "1", "memory", "32Mi"), Limits: list("cpu", "1")},
			Requests:  "cpu=1,memory=32Mi", PreemptionPolicy: api.PreemptLowerPriority,
		},
	}, {
		name:      "above max",
		reason:    "LimitRanger's validation of a Container max",
		namespace: "bounded",
		template:  api.PodTemplate{Containers: one(list("memory", "64Mi"), list("cpu", "2"))},
		want: got{
			Container: api.Resources{Requests: list("cpu", "2", "memory", "64Mi"), Limits: list("cpu", "2")},
			Requests:  "cpu=2,memory=64Mi", PreemptionPolicy: api.PreemptLowerPriority,
			Refused: []string{"Forbidden spec.containers[0].resources.limits[cpu]"},
		},
	}, {
		name:      "pod max over the containers' sum",
		reason:    "a Pod item bounds the containers' limits summed",
		namespace: "pods",
		template: api.PodTemplate{Containers: []api.Container{
			{Name: "a", Resources: api.Resources{Limits: list("cpu", "1", "memory", "768Mi")}},
			{Name: "b", Resources: api.Resources{Limits: list("cpu", "1", "memory", "512Mi")}},
		}},
		want: got{
			Container: api.Resources{Requests: list("cpu", "1", "memory", "768Mi"), Limits: list("cpu", "1", "memory", "768Mi")},
			Requests:  "cpu=2,memory=1280Mi", PreemptionPolicy: api.PreemptLowerPriority,
			Refused: []string{"Forbidden spec.resources.limits[memory]"},
		},
	}, {
		name:      "limit to request ratio",
		reason:    "a Container item's maxLimitRequestRatio: 4 times the request is above 2",
		namespace: "pods",
		template:  api.PodTemplate{Containers: one(list("cpu", "250m", "memory", "64Mi"), list("cpu", "1", "memory", "64Mi"))},
		want: got{
			Container: api.Resources{Requests: list("cpu", "250m", "memory", "64Mi"), Limits: list("cpu", "1", "memory", "64Mi")},
			Requests:  "cpu=250m,memory=64Mi", PreemptionPolicy: api.PreemptLowerPriority,
			Refused: []string{"Forbidden spec.containers[0].resources.limits[cpu]"},
		},
	}, {
		name:     "named class",
		reason:   "the class's value and policy",
		template: api.PodTemplate{PriorityClassName: "batch"},
		want:     got{Requests: "", ClassName: "batch", Priority: 10, PreemptionPolicy: api.PreemptNever},
	}, {
		name:     "built-in class",
		reason:   "system-node-critical exists on every cluster without being given",
		template: api.PodTemplate{PriorityClassName: admission.SystemNodeCritical},
		want:     got{ClassName: admission.SystemNodeCritical, Priority: 2000001000, PreemptionPolicy: api.PreemptLowerPriority},
	}, {
		name:     "missing class refuses the pod",
		reason:   "the Priority plugin refuses an unknown class; never guessed",
		template: api.PodTemplate{PriorityClassName: "nope"},
		want:     got{ClassName: "nope", PreemptionPolicy: api.PreemptLowerPriority, Refused: []string{"template priority not set", "Forbidden spec.priorityClassName"}},
	}, {
		name:     "global default, lowest value",
		reason:   "of two global defaults the lower value wins",
		objects:  withDefault,
		template: api.PodTemplate{},
		want:     got{ClassName: "default-a", Priority: 5, PreemptionPolicy: api.PreemptLowerPriority},
	}, {
		name:     "priority given and different",
		reason:   "spec.priority must match the class",
		template: api.PodTemplate{PriorityClassName: "high", Priority: ptr(int32(3))},
		want:     got{ClassName: "high", Priority: 1000, PreemptionPolicy: api.PreemptLowerPriority, Refused: []string{"Forbidden spec.priority"}},
	}, {
		name:     "policy given and different",
		reason:   "spec.preemptionPolicy must match the class",
		template: api.PodTemplate{PriorityClassName: "batch", PreemptionPolicy: api.PreemptLowerPriority},
		want:     got{ClassName: "batch", Priority: 10, PreemptionPolicy: api.PreemptNever, Refused: []string{"Forbidden spec.preemptionPolicy"}},
	}, {
		name:     "runtime class overhead",
		reason:   "the RuntimeClass plugin sets spec.overhead; the requests add it",
		template: api.PodTemplate{RuntimeClassName: "kata", Containers: one(list("cpu", "100m"), nil)},
		want: got{
			Container: api.Resources{Requests: list("cpu", "100m")},
			Requests:  "cpu=350m,memory=120Mi", Overhead: "cpu=250m,memory=120Mi", PreemptionPolicy: api.PreemptLowerPriority,
		},
	}, {
		name:     "runtime class without overhead",
		reason:   "nothing added",
		template: api.PodTemplate{RuntimeClassName: "runc"},
		want:     got{PreemptionPolicy: api.PreemptLowerPriority},
	}, {
		name:     "missing runtime class refuses the pod",
		reason:   "never guessed",
		template: api.PodTemplate{RuntimeClassName: "gvisor"},
		want:     got{PreemptionPolicy: api.PreemptLowerPriority, Refused: []string{"Forbidden spec.runtimeClassName"}},
	}, {
		name:     "overhead differs from the class",
		reason:   "setOverhead refuses a different overhead",
		template: api.PodTemplate{RuntimeClassName: "kata", Overhead: list("cpu", "1")},
		want:     got{Requests: "cpu=1", Overhead: "cpu=1", PreemptionPolicy: api.PreemptLowerPriority, Refused: []string{"Forbidden spec.overhead"}},
	}, {
		name:     "overhead equal to the class's",
		reason:   "equal by value is accepted",
		template: api.PodTemplate{RuntimeClassName: "kata", Overhead: list("cpu", "0.25", "memory", "120Mi")},
		want:     got{Requests: "cpu=250m,memory=120Mi", Overhead: "cpu=250m,memory=120Mi", PreemptionPolicy: api.PreemptLowerPriority},
	}, {
		name:     "overhead without a runtime class",
		reason:   "validateOverhead refuses an overhead no RuntimeClass defines",
		template: api.PodTemplate{Overhead: list("cpu", "1")},
		want:     got{Requests: "cpu=1", Overhead: "cpu=1", PreemptionPolicy: api.PreemptLowerPriority, Refused: []string{"Forbidden spec.overhead"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.objects
			if o.LimitRanges == nil && o.PriorityClasses == nil {
				o = objects
			}
			r, err := admission.Compile(o)
			require.NoError(t, err)
			ns := tt.namespace
			if ns == "" {
				ns = "default"
			}
			g := summarize(r.Admit(ns, &tt.template))
			if tt.want.Container.Requests == nil && tt.want.Container.Limits == nil && len(tt.template.Containers) > 0 {
				t.Fatal("test: want a container")
			}
			if d := cmp.Diff(tt.want, g, quantityCmp); d != "" {
				t.Errorf("Admit() mismatch (-want +got), %s:\n%s", tt.reason, d)
			}
		})
	}
}

func TestAdmitNil(t *testing.T) {
	var r *admission.Rules
	tpl := api.PodTemplate{PriorityClassName: "nope", Priority: ptr(int32(7)), PreemptionPolicy: api.PreemptNever, Overhead: list("cpu", "1")}
	a := r.Admit("ns", &tpl)
	if d := cmp.Diff(tpl, a.Template, quantityCmp); d != "" {
		t.Errorf("nil Rules changed the template (-want +got):\n%s", d)
	}
	require.Equal(t, int32(7), a.Priority)
	require.Equal(t, api.PreemptNever, a.PreemptionPolicy)
	require.Empty(t, a.Refused)
}

func TestCompileErrors(t *testing.T) {
	o := admission.ClusterObjects{
		LimitRanges: []admission.LimitRange{
			{Namespace: "a", Name: "x", Limits: []admission.LimitRangeItem{{Type: "Node"}, {Type: admission.LimitTypeContainer, Default: list("cpu", "-1")}}},
			{Namespace: "a", Name: "x"},
			{Name: ""},
		},
		PriorityClasses: []admission.PriorityClass{{Name: "p"}, {Name: "p"}, {Name: "q", PreemptionPolicy: "Sometimes"}, {}},
		RuntimeClasses:  []admission.RuntimeClass{{Name: "r", Overhead: list("memory", "-1Mi")}, {}},
	}
	_, err := admission.Compile(o)
	var errs field.ErrorList
	require.ErrorAs(t, err, &errs)
	var gotErrs []string
	for _, e := range errs {
		gotErrs = append(gotErrs, e.Type.String()+" "+e.Field)
	}
	want := []string{
		"NotSupported limitRanges[0].spec.limits[0].type",
		"Invalid limitRanges[0].spec.limits[1].default[cpu]",
		"Duplicate limitRanges[1].metadata.name",
		"Required limitRanges[2].metadata.name",
		"Required limitRanges[2].metadata.namespace",
		"Duplicate priorityClasses[1].metadata.name",
		"NotSupported priorityClasses[2].preemptionPolicy",
		"Required priorityClasses[3].metadata.name",
		"Invalid runtimeClasses[0].overhead.podFixed[memory]",
		"Required runtimeClasses[1].metadata.name",
	}
	if d := cmp.Diff(want, gotErrs); d != "" {
		t.Errorf("Compile() errors mismatch (-want +got):\n%s", d)
	}
}
