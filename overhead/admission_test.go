package overhead_test

import (
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/resource"
)

func admissionRules(t *testing.T) *admission.Rules {
	t.Helper()
	r, err := admission.Compile(admission.ClusterObjects{
		LimitRanges: []admission.LimitRange{{Namespace: "monitoring", Name: "defaults", Limits: []admission.LimitRangeItem{{
			Type: admission.LimitTypeContainer, DefaultRequest: resource.List{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("64Mi")},
		}}}},
		PriorityClasses: []admission.PriorityClass{{Name: "cluster-default", Value: 50, GlobalDefault: true}},
		RuntimeClasses:  []admission.RuntimeClass{{Name: "kata", Overhead: resource.List{"cpu": resource.MustParse("250m")}}},
	})
	require.NoError(t, err)
	return r
}

// TestCompileAdmission: with Options.Admission each DaemonSet's requests,
// priority and refusals are its admitted pod's, in node and template
// answers alike; without, the templates as written.
func TestCompileAdmission(t *testing.T) {
	dss := []*api.DaemonSet{
		{Namespace: "monitoring", Name: "exporter", Template: api.PodTemplate{Containers: []api.Container{{Name: "e"}}}},
		{Namespace: "kube-system", Name: "sandboxed", Template: api.PodTemplate{RuntimeClassName: "kata",
			Containers: []api.Container{{Name: "a", Resources: api.Resources{Limits: resource.List{"cpu": resource.MustParse("1")}}}}}},
		{Namespace: "kube-system", Name: "typo", Template: api.PodTemplate{PriorityClassName: "agentz",
			Containers: []api.Container{{Name: "a", Resources: api.Resources{Requests: resource.List{"cpu": resource.MustParse("10m")}}}}}},
	}
	type row struct {
		Name     string
		Requests string
		Priority int32
		Refused  []string
		Lands    bool
	}
	summarize := func(s *overhead.Catalog) ([]row, string, string) {
		var out []row
		rep := s.Report(&api.Node{Name: "n"}, nil)
		for _, e := range rep.DaemonSets {
			r := row{Name: e.Name, Requests: e.Requests.String(), Priority: e.Priority, Lands: e.Lands}
			for _, f := range e.Refused {
				r.Refused = append(r.Refused, f.Field)
			}
			out = append(out, r)
		}
		plan, err := s.PlanTemplate(&overhead.NodeTemplate{}, nil)
		require.NoError(t, err)
		return out, rep.Requests.String(), plan.Overhead.Every.String()
	}
	tests := []struct {
		name, reason string
		opts         overhead.Options
		want         []row
		total        string
	}{{
		name:   "without admission",
		reason: "no objects given: the templates as written, nothing refused",
		want: []row{
			{Name: "sandboxed", Requests: "cpu=1", Lands: true},
			{Name: "typo", Requests: "cpu=10m", Lands: true},
			{Name: "exporter", Requests: "", Lands: true},
		},
		total: "cpu=1010m",
	}, {
		name:   "with admission",
		reason: "RuntimeClass overhead added, the global default priority, LimitRange defaults; the missing class refused and counted nowhere",
		opts:   overhead.Options{Admission: admissionRules(t)},
		want: []row{
			{Name: "sandboxed", Requests: "cpu=1250m", Priority: 50, Lands: true},
			{Name: "typo", Requests: "cpu=10m", Refused: []string{"daemonSets[2].spec.template.spec.priorityClassName"}},
			{Name: "exporter", Requests: "cpu=100m,memory=64Mi", Priority: 50, Lands: true},
		},
		total: "cpu=1350m,memory=64Mi",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := overhead.Compile(dss, tt.opts)
			got, total, every := summarize(s)
			if d := gocmp.Diff(tt.want, got); d != "" {
				t.Errorf("Report() mismatch (-want +got), %s:\n%s", tt.reason, d)
			}
			if total != tt.total || every != tt.total {
				t.Errorf("%s: node total %s, template Every %s, want %s", tt.reason, total, every, tt.total)
			}
			if n := len(s.Refusals()); n != len(tt.want[1].Refused) {
				t.Errorf("Refusals() has %d, want %d", n, len(tt.want[1].Refused))
			}
		})
	}
}

// Refusals lists the pods the API server would refuse: such a pod lands
// nowhere, whatever the controller decides.
func ExampleCatalog_Refusals() {
	rules, err := admission.Compile(admission.ClusterObjects{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := overhead.Compile([]*api.DaemonSet{{Namespace: "kube-system", Name: "agent", Template: api.PodTemplate{
		PriorityClassName: "system-node-critcal",
	}}}, overhead.Options{Admission: rules})
	fmt.Println(s.Refusals())
	var r overhead.NodeResult
	s.Query(&api.Node{Name: "n"}, &r)
	fmt.Println("decision:", r.Decisions[0].Reason, "lands:", r.Lands(0))
	// Output:
	// daemonSets[0].spec.template.spec.priorityClassName: Forbidden: no PriorityClass with name system-node-critcal was found
	// decision: Eligible lands: false
}

// TestKarpenterAdmissionCases: the autoscaler issues about admission, as
// named cases of PlanTemplate over one instance type, each with what the
// API server makes of the daemon pod.
func TestKarpenterAdmissionCases(t *testing.T) {
	q := resource.MustParse
	tiny := overhead.InstanceType{Name: "tiny", Allocatable: resource.List{"cpu": q("1"), "memory": q("2Gi"), "pods": q("8")}}
	tests := []struct {
		name, reason string
		objects      admission.ClusterObjects
		template     api.PodTemplate
		overhead     string
		fits         bool
	}{{
		name:   "LimitRanger defaults (aws/karpenter-provider-aws#3199)",
		reason: "containers without requests take the namespace's default requests: counted as 0, the node is too small",
		objects: admission.ClusterObjects{LimitRanges: []admission.LimitRange{{Namespace: "agents", Name: "defaults", Limits: []admission.LimitRangeItem{{
			Type: admission.LimitTypeContainer, Default: resource.List{"cpu": q("600m"), "memory": q("512Mi")},
		}}}}},
		template: api.PodTemplate{Containers: []api.Container{{Name: "a"}, {Name: "b"}}},
		overhead: "cpu=1200m,memory=1Gi",
	}, {
		name:     "limits without requests (aws/karpenter-provider-aws#1573)",
		reason:   "a limit stands for the missing request, before any LimitRange default request",
		objects:  admission.ClusterObjects{LimitRanges: []admission.LimitRange{{Namespace: "agents", Name: "defaults", Limits: []admission.LimitRangeItem{{Type: admission.LimitTypeContainer, DefaultRequest: resource.List{"cpu": q("10m")}}}}}},
		template: api.PodTemplate{Containers: []api.Container{{Name: "a", Resources: api.Resources{Limits: resource.List{"cpu": q("1500m")}}}}},
		overhead: "cpu=1500m",
	}, {
		name:     "RuntimeClass overhead",
		reason:   "a sandboxed runtime's overhead is added to the pod's requests",
		objects:  admission.ClusterObjects{RuntimeClasses: []admission.RuntimeClass{{Name: "kata", Overhead: resource.List{"cpu": q("250m"), "memory": q("160Mi")}}}},
		template: api.PodTemplate{RuntimeClassName: "kata", Containers: []api.Container{{Name: "a", Resources: api.Resources{Requests: resource.List{"cpu": q("800m")}}}}},
		overhead: "cpu=1050m,memory=160Mi",
	}, {
		name:     "missing PriorityClass",
		reason:   "the pod is refused: it lands on no node and takes nothing",
		template: api.PodTemplate{PriorityClassName: "agents", Containers: []api.Container{{Name: "a", Resources: api.Resources{Requests: resource.List{"cpu": q("100m")}}}}},
		overhead: "",
		fits:     true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := admission.Compile(tt.objects)
			require.NoError(t, err)
			ds := &api.DaemonSet{Namespace: "agents", Name: "agent", UID: "u", Template: tt.template}
			plan, err := overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{Admission: rules}).PlanTemplate(&overhead.NodeTemplate{}, []overhead.InstanceType{tiny})
			require.NoError(t, err)
			if got := plan.Overhead.Every.String(); got != tt.overhead || plan.InstanceTypes[0].Fits != tt.fits {
				t.Errorf("%s: overhead %s fits %v, want %s %v", tt.reason, got, plan.InstanceTypes[0].Fits, tt.overhead, tt.fits)
			}
		})
	}
}
