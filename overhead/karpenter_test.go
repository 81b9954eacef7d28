package overhead_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/resource"
	"github.com/daemonplan/daemonplan/selector"
)

// TestKarpenterFailureClasses: each way Karpenter v1.15.0's daemon
// overhead departs from the DaemonSet controller (kubernetes-sigs/karpenter
// #1749, #1337, #715, #532, #919) as a template question with the
// controller's exact answer.
func TestKarpenterFailureClasses(t *testing.T) {
	in := func(key string, values ...string) api.NodeSelectorRequirement {
		return api.NodeSelectorRequirement{Key: key, Operator: api.SelectorOpIn, Values: values}
	}
	req := func(key string, op api.SelectorOperator, values ...string) selector.Requirement {
		return selector.Requirement{Key: key, Operator: op, Values: values}
	}
	terms := func(ts ...api.NodeSelectorTerm) *api.NodeSelector { return &api.NodeSelector{Terms: ts} }
	const zone, arch = "topology.kubernetes.io/zone", "kubernetes.io/arch"
	for _, tc := range []struct {
		name, why string
		ds        api.PodTemplate
		tpl       overhead.NodeTemplate
		want      overhead.Answer
		reason    placement.Reason
		where     string
	}{{
		name: "default daemon tolerations: unschedulable",
		why:  "the controller adds an Exists toleration of node.kubernetes.io/unschedulable:NoSchedule to every daemon pod, so a cordoned node still gets it",
		tpl:  overhead.NodeTemplate{Taints: []api.Taint{{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}}},
		want: overhead.Every, reason: placement.Eligible,
	}, {
		name: "default daemon tolerations: not-ready and pressure",
		why:  "not-ready and unreachable NoExecute and the disk, memory and pid pressure NoSchedule taints are tolerated by default",
		tpl: overhead.NodeTemplate{Taints: []api.Taint{
			{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute},
			{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute},
			{Key: api.TaintNodeDiskPressure, Effect: api.TaintEffectNoSchedule},
			{Key: api.TaintNodeMemoryPressure, Effect: api.TaintEffectNoSchedule},
			{Key: api.TaintNodePIDPressure, Effect: api.TaintEffectNoSchedule},
		}},
		want: overhead.Every, reason: placement.Eligible,
	}, {
		name: "default daemon tolerations: network-unavailable with host network",
		why:  "a host-network daemon pod tolerates node.kubernetes.io/network-unavailable by default",
		ds:   api.PodTemplate{HostNetwork: true},
		tpl:  overhead.NodeTemplate{Taints: []api.Taint{{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule}}},
		want: overhead.Every, reason: placement.Eligible,
	}, {
		name: "default daemon tolerations: network-unavailable without host network",
		why:  "only host-network pods get that default toleration",
		tpl:  overhead.NodeTemplate{Taints: []api.Taint{{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule}}},
		want: overhead.None, reason: placement.UntoleratedNoSchedule,
	}, {
		name: "PreferNoSchedule is not hard",
		why:  "the controller checks NoSchedule and NoExecute taints only; a PreferNoSchedule taint never keeps a daemon pod off",
		tpl:  overhead.NodeTemplate{Taints: []api.Taint{{Key: "spot", Effect: api.TaintEffectPreferNoSchedule}}},
		want: overhead.Every, reason: placement.Eligible,
	}, {
		name: "every OR term, not the first",
		why:  "the required node affinity matches when any term does; the second term matches every arm64 node",
		ds:   api.PodTemplate{RequiredNodeAffinity: terms(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{in(zone, "x")}}, api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{in(arch, "arm64")}})},
		tpl:  overhead.NodeTemplate{Requirements: []selector.Requirement{req(arch, api.SelectorOpIn, "arm64"), req(zone, api.SelectorOpIn, "a")}},
		want: overhead.Every, reason: placement.Eligible,
	}, {
		name: "OR terms are not dropped by another template",
		why:  "one term per node pool: each pool's nodes match their own term, whichever pool was asked about first",
		ds:   api.PodTemplate{RequiredNodeAffinity: terms(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{in("pool", "a")}}, api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{in("pool", "b")}})},
		tpl:  overhead.NodeTemplate{Labels: map[string]string{"pool": "b"}},
		want: overhead.Every, reason: placement.Eligible,
	}, {
		name: "matchFields on the node name",
		why:  "a new node's name is none a DaemonSet writes: metadata.name In [node-1] matches no node of the template",
		ds:   api.PodTemplate{RequiredNodeAffinity: terms(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{{Key: api.NodeNameField, Operator: api.SelectorOpIn, Values: []string{"node-1"}}}})},
		want: overhead.None, reason: placement.NodeAffinityMismatch,
	}, {
		name: "template nodeName",
		why:  "a pod template naming a node runs on that node only, never on a new one",
		ds:   api.PodTemplate{NodeName: "node-1"},
		want: overhead.None, reason: placement.NodeNameMismatch,
	}, {
		name: "Exists and NotIn on one key are both kept",
		why:  "gpu Exists AND gpu NotIn [a100] needs the label; a pool without it runs no such pod (NotIn alone would admit it)",
		ds: api.PodTemplate{RequiredNodeAffinity: terms(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: "gpu", Operator: api.SelectorOpExists}, {Key: "gpu", Operator: api.SelectorOpNotIn, Values: []string{"a100"}},
		}})},
		tpl:  overhead.NodeTemplate{Requirements: []selector.Requirement{req("gpu", api.SelectorOpDoesNotExist)}},
		want: overhead.None, reason: placement.NodeAffinityMismatch,
	}, {
		name: "Exists and NotIn on an open key",
		why:  "on a pool that says nothing of gpu, the pod lands exactly where gpu is set to something other than a100",
		ds: api.PodTemplate{RequiredNodeAffinity: terms(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: "gpu", Operator: api.SelectorOpExists}, {Key: "gpu", Operator: api.SelectorOpNotIn, Values: []string{"a100"}},
		}})},
		want: overhead.Depends, reason: placement.Eligible, where: "gpu Exists, gpu NotIn [a100]",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ds := &api.DaemonSet{Namespace: "ns", Name: "ds", UID: "u", Template: tc.ds}
			s := overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{})
			ct, err := overhead.CompileTemplate(&tc.tpl)
			if err != nil {
				t.Fatal(err)
			}
			var r overhead.TemplateResult
			if err := s.QueryTemplate(ct, &r); err != nil {
				t.Fatal(err)
			}
			a := r.Answers[0]
			var where []string
			for _, w := range a.Where {
				var parts []string
				for _, q := range w {
					parts = append(parts, overhead.RequirementString(q))
				}
				where = append(where, strings.Join(parts, ", "))
			}
			if a.Answer != tc.want || a.Reason != tc.reason || strings.Join(where, " | ") != tc.where {
				t.Errorf("%s\ngot %v %v where %q, want %v %v where %q", tc.why, a.Answer, a.Reason, strings.Join(where, " | "), tc.want, tc.reason, tc.where)
			}
		})
	}
}

// TestKarpenterPodLevelLimits: pod-level limits without pod-level requests
// are requests too (the API server defaults them), so a daemon pod whose
// containers request nothing still takes its pod-level limits.
func TestKarpenterPodLevelLimits(t *testing.T) {
	ds := &api.DaemonSet{Namespace: "ns", Name: "ds", UID: "u", Template: api.PodTemplate{
		Containers: []api.Container{{Name: "c"}},
		Resources:  api.Resources{Limits: resource.List{"cpu": resource.MustParse("500m"), "memory": resource.MustParse("1Gi")}},
	}}
	s := overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{})
	plan, err := s.PlanTemplate(&overhead.NodeTemplate{}, []overhead.InstanceType{{
		Name: "tiny", Allocatable: resource.List{"cpu": resource.MustParse("400m"), "memory": resource.MustParse("4Gi"), "pods": resource.MustParse("4")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := plan.Overhead.Every.String(), "cpu=500m,memory=1Gi"; got != want {
		t.Errorf("overhead %s, want %s", got, want)
	}
	it := plan.InstanceTypes[0]
	if it.Fits || !slices.Equal(it.Insufficient, []string{"cpu"}) {
		t.Errorf("fits %v insufficient %v, want false [cpu]", it.Fits, it.Insufficient)
	}
}

// TestKarpenterORTermsAcrossPools: asking about one NodePool never changes
// the answer about the next: a DaemonSet with one affinity term per pool
// lands on every node of each, whichever is asked first and with one
// reused result.
func TestKarpenterORTermsAcrossPools(t *testing.T) {
	term := func(v string) api.NodeSelectorTerm {
		return api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "pool", Operator: api.SelectorOpIn, Values: []string{v}}}}
	}
	ds := &api.DaemonSet{Namespace: "ns", Name: "ds", UID: "u", Template: api.PodTemplate{
		RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{term("a"), term("b")}},
	}}
	s := overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{})
	var r overhead.TemplateResult
	for _, order := range [][]string{{"a", "b"}, {"b", "a"}} {
		for _, pool := range order {
			ct, err := overhead.CompileTemplate(&overhead.NodeTemplate{Labels: map[string]string{"pool": pool}})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.QueryTemplate(ct, &r); err != nil {
				t.Fatal(err)
			}
			if a := r.Answers[0]; a.Answer != overhead.Every {
				t.Errorf("pool %s after %v: %v, want Every", pool, order, a.Answer)
			}
		}
	}
}
