package overhead_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/resource"
)

func list(kv ...string) resource.List {
	l := resource.List{}
	for i := 0; i < len(kv); i += 2 {
		l[kv[i]] = resource.MustParse(kv[i+1])
	}
	return l
}

// daemonSets generates 0–8 DaemonSets with distinct names, each with the
// reference generator's placement fields and a generated workload.
func daemonSets() *rapid.Generator[[]*api.DaemonSet] {
	return rapid.Custom(func(t *rapid.T) []*api.DaemonSet {
		n := rapid.IntRange(0, 8).Draw(t, "daemonSets")
		out := make([]*api.DaemonSet, n)
		for i := range out {
			ds := plantest.DaemonSet(plantest.Options{}).Draw(t, "ds")
			ds.Namespace = rapid.SampledFrom([]string{"kube-system", "monitoring"}).Draw(t, "namespace")
			ds.Name = fmt.Sprintf("ds-%d", i)
			ds.UID = ds.Name + "-uid"
			plantest.Workload(t, &ds.Template)
			out[i] = ds
		}
		return out
	})
}

// scratch answers the node-centric question the slow way: every
// DaemonSet evaluated from scratch, requests summed as lists in
// namespace/name order (a sum's format is its first operand's). Its
// decisions come from placement.NewEligibility, as Compile's do, so the
// comparison checks what overhead adds (order, landing, sums), not
// eligibility itself, which placement's and kube/differential's tests
// check against upstream.
func scratch(dss []*api.DaemonSet, n *api.Node) (map[string]placement.Decision, resource.List) {
	decisions := map[string]placement.Decision{}
	total := resource.List{}
	sorted := slices.Clone(dss)
	slices.SortStableFunc(sorted, func(a, b *api.DaemonSet) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	for _, ds := range sorted {
		d := placement.NewEligibility(ds, placement.Options{}).Decide(n)
		decisions[ds.Namespace+"/"+ds.Name] = d
		if d.ShouldRun {
			total = total.Add(ds.Template.Requests())
		}
	}
	return decisions, total
}

// TestQueryAgreesWithScratch: for generated DaemonSets and nodes, each
// decision is the planner's (placement.Eligibility) and the total is the
// sum of the landing pods' requests; reversing the input changes nothing;
// the inputs are not changed.
func TestQueryAgreesWithScratch(t *testing.T) {
	var landed, blocked int
	rapid.Check(t, func(t *rapid.T) {
		dss := daemonSets().Draw(t, "dss")
		n := plantest.Node(plantest.Options{}, rapid.IntRange(0, 9).Draw(t, "nodeIndex")).Draw(t, "node")
		before := make([]*api.DaemonSet, len(dss))
		for i, ds := range dss {
			before[i] = ds.DeepCopy()
		}
		nodeBefore := n.DeepCopy()

		s := overhead.Compile(dss, overhead.Options{})
		rep := s.Report(&n, nil)
		wantDec, wantTotal := scratch(dss, &n)
		if len(rep.DaemonSets) != len(dss) {
			t.Fatalf("Report has %d DaemonSets, want %d", len(rep.DaemonSets), len(dss))
		}
		for i, e := range rep.DaemonSets {
			if diff := gocmp.Diff(wantDec[e.Namespace+"/"+e.Name], e.Decision); diff != "" {
				t.Fatalf("%s/%s decision mismatch (-want +got):\n%s", e.Namespace, e.Name, diff)
			}
			if e.Lands != e.Decision.ShouldRun {
				t.Fatalf("%s/%s: Lands %v, ShouldRun %v", e.Namespace, e.Name, e.Lands, e.Decision.ShouldRun)
			}
			if i > 0 {
				prev := rep.DaemonSets[i-1]
				if prev.Namespace > e.Namespace || prev.Namespace == e.Namespace && prev.Name > e.Name {
					t.Fatalf("DaemonSets not sorted: %s/%s before %s/%s", prev.Namespace, prev.Name, e.Namespace, e.Name)
				}
			}
			if e.Lands {
				landed++
			} else {
				blocked++
			}
		}
		if got, want := rep.Requests.String(), wantTotal.String(); got != want {
			t.Fatalf("Requests = %q, want %q", got, want)
		}

		reversed := make([]*api.DaemonSet, len(dss))
		for i, ds := range dss {
			reversed[len(dss)-1-i] = ds
		}
		if diff := gocmp.Diff(rep, overhead.Compile(reversed, overhead.Options{}).Report(&n, nil)); diff != "" {
			t.Fatalf("Report depends on input order (-in order +reversed):\n%s", diff)
		}
		if diff := gocmp.Diff(before, dss); diff != "" {
			t.Fatalf("DaemonSets changed (-before +after):\n%s", diff)
		}
		if diff := gocmp.Diff(nodeBefore, n); diff != "" {
			t.Fatalf("node changed (-before +after):\n%s", diff)
		}
	})
	if landed == 0 || blocked == 0 {
		t.Errorf("generators never produced both outcomes: landed %d, blocked %d", landed, blocked)
	}
}

func TestQueryDoesNotAllocate(t *testing.T) {
	dss := fleet(50)
	s := overhead.Compile(dss, overhead.Options{})
	n := gpuNode()
	var r overhead.NodeResult
	s.Query(&n, &r)
	if allocs := testing.AllocsPerRun(100, func() { s.Query(&n, &r) }); allocs != 0 {
		t.Errorf("Query allocates %v times per call with a grown Result, want 0", allocs)
	}
}

func TestReport(t *testing.T) {
	agent := &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "a", Template: api.PodTemplate{
		Containers: []api.Container{{Name: "agent", Resources: api.Resources{Requests: list("cpu", "100m", "memory", "64Mi")}}},
	}}
	gpu := &api.DaemonSet{Namespace: "kube-system", Name: "gpu-plugin", UID: "g", Template: api.PodTemplate{
		NodeSelector: map[string]string{"gpu": "true"},
		Tolerations:  []api.Toleration{{Key: "nvidia.com/gpu", Operator: api.TolerationOpExists}},
		Containers:   []api.Container{{Name: "plugin", Resources: api.Resources{Limits: list("cpu", "50m", "memory", "0.5Gi")}}},
	}}
	tests := []struct {
		name, reason string
		node         api.Node
		lands        []bool
		reasons      []placement.Reason
		total        string
	}{{
		name:    "General",
		reason:  "the agent lands everywhere; the GPU plugin's nodeSelector rules out a general node",
		node:    api.Node{Name: "general"},
		lands:   []bool{true, false},
		reasons: []placement.Reason{placement.Eligible, placement.NodeSelectorMismatch},
		total:   "cpu=100m,memory=64Mi",
	}, {
		name:    "GPU",
		reason:  "the GPU taint blocks the agent, which does not tolerate it; the plugin lands and requests its limits",
		node:    api.Node{Name: "gpu", Labels: map[string]string{"gpu": "true"}, Taints: []api.Taint{{Key: "nvidia.com/gpu", Effect: api.TaintEffectNoSchedule}}},
		lands:   []bool{false, true},
		reasons: []placement.Reason{placement.UntoleratedNoSchedule, placement.Eligible},
		total:   "cpu=50m,memory=512Mi",
	}}
	s := overhead.Compile([]*api.DaemonSet{gpu, agent}, overhead.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := s.Report(&tt.node, nil)
			for i, e := range rep.DaemonSets {
				if e.Lands != tt.lands[i] || e.Decision.Reason != tt.reasons[i] {
					t.Errorf("%s: lands %v (%v), want %v (%v) (%s)", e.Name, e.Lands, e.Decision.Reason, tt.lands[i], tt.reasons[i], tt.reason)
				}
			}
			if got := rep.Requests.String(); got != tt.total {
				t.Errorf("Requests = %q, want %q (%s)", got, tt.total, tt.reason)
			}
		})
	}
}
