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
