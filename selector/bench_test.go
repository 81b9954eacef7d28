package selector

import (
	"testing"

	"github.com/daemonplan/daemonplan/api"
)

// realisticNode is the label set of a cloud node: 20 labels, the kind the
// DaemonSet controller matches against for every node on every sync.
func realisticNode() map[string]string {
	return map[string]string{
		"beta.kubernetes.io/arch":                  "amd64",
		"beta.kubernetes.io/instance-type":         "m5.2xlarge",
		"beta.kubernetes.io/os":                    "linux",
		"failure-domain.beta.kubernetes.io/region": "eu-west-1",
		"failure-domain.beta.kubernetes.io/zone":   "eu-west-1b",
		"kubernetes.io/arch":                       "amd64",
		"kubernetes.io/hostname":                   "ip-10-0-12-34.eu-west-1.compute.internal",
		"kubernetes.io/os":                         "linux",
		"node.kubernetes.io/instance-type":         "m5.2xlarge",
		"topology.kubernetes.io/region":            "eu-west-1",
		"topology.kubernetes.io/zone":              "eu-west-1b",
		"node-role.kubernetes.io/worker":           "",
		"eks.amazonaws.com/capacityType":           "ON_DEMAND",
		"eks.amazonaws.com/nodegroup":              "general-purpose",
		"eks.amazonaws.com/nodegroup-image":        "ami-0123456789abcdef0",
		"k8s.io/cloud-provider-aws":                "a1b2c3d4e5f6",
		"team":                                     "platform",
		"env":                                      "prod",
		"gpu":                                      "false",
		"kernel-version":                           "0515",
	}
}

// realisticPod is the label set of a DaemonSet pod (the other 20-label set a
// label selector is matched against).
func realisticPod() map[string]string {
	l := map[string]string{
		"app":                          "fluent-bit",
		"app.kubernetes.io/name":       "fluent-bit",
		"app.kubernetes.io/instance":   "logging",
		"app.kubernetes.io/component":  "agent",
		"app.kubernetes.io/part-of":    "observability",
		"app.kubernetes.io/managed-by": "helm",
		"app.kubernetes.io/version":    "3.0.4",
		"helm.sh/chart":                "fluent-bit-0.46.7",
		"controller-revision-hash":     "6d8f7b9c5d",
		"pod-template-generation":      "12",
		"tier":                         "logging",
		"env":                          "prod",
		"team":                         "platform",
		"cost-center":                  "cc-1234",
		"release":                      "logging",
		"heritage":                     "Helm",
		"security.example.com/scanned": "true",
		"sidecar.istio.io/inject":      "false",
		"version":                      "v3",
		"track":                        "stable",
	}
	return l
}

// realisticSelector is a DaemonSet spec.selector as charts write them.
func realisticSelector() *api.LabelSelector {
	return &api.LabelSelector{
		MatchLabels: map[string]string{
			"app.kubernetes.io/name":     "fluent-bit",
			"app.kubernetes.io/instance": "logging",
		},
		MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "env", Operator: api.SelectorOpIn, Values: []string{"prod", "staging"}},
			{Key: "canary", Operator: api.SelectorOpDoesNotExist},
		},
	}
}

// realisticNodeConstraints: a 2-key nodeSelector and two required terms, the
// first of which fails on the realistic node so that both are evaluated.
func realisticNodeConstraints() (map[string]string, *api.NodeSelector) {
	return map[string]string{
			"kubernetes.io/os":   "linux",
			"kubernetes.io/arch": "amd64",
		}, &api.NodeSelector{Terms: []api.NodeSelectorTerm{
			{MatchExpressions: []api.NodeSelectorRequirement{
				{Key: "gpu", Operator: api.SelectorOpIn, Values: []string{"true"}},
				{Key: "node-role.kubernetes.io/worker", Operator: api.SelectorOpExists},
			}},
			{MatchExpressions: []api.NodeSelectorRequirement{
				{Key: "topology.kubernetes.io/zone", Operator: api.SelectorOpIn, Values: []string{"eu-west-1a", "eu-west-1b"}},
				{Key: "kernel-version", Operator: api.SelectorOpGt, Values: []string{"0415"}},
				{Key: "node.kubernetes.io/exclude-from-external-load-balancers", Operator: api.SelectorOpDoesNotExist},
			}},
		}}
}

var sinkBool bool

func BenchmarkSelectorMatches(b *testing.B) {
	pod := realisticPod()
	ls := realisticSelector()
	b.Run("compiled", func(b *testing.B) {
		s, err := Compile(ls)
		if err != nil || !s.Matches(pod) {
			b.Fatalf("setup: %v, %v", s, err)
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkBool = s.Matches(pod)
		}
	})
	b.Run("naive-compile-per-call", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			s, _ := Compile(ls)
			sinkBool = s.Matches(pod)
		}
	})
	b.Run("naive-parse-per-call", func(b *testing.B) {
		str := "app.kubernetes.io/instance=logging,app.kubernetes.io/name=fluent-bit,!canary,env in (prod,staging)"
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			s, _ := Parse(str)
			sinkBool = s.Matches(pod)
		}
	})
}

func BenchmarkNodeMatcherMatch(b *testing.B) {
	node := realisticNode()
	ns, req := realisticNodeConstraints()
	b.Run("compiled", func(b *testing.B) {
		m := CompileNode(ns, req)
		if ok, mm := m.Match("ip-10-0-12-34", node); !ok {
			b.Fatalf("setup: %+v", mm)
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkBool, _ = m.Match("ip-10-0-12-34", node)
		}
	})
	b.Run("naive-compile-per-call", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			m := CompileNode(ns, req)
			sinkBool, _ = m.Match("ip-10-0-12-34", node)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, _ = Parse("app.kubernetes.io/instance=logging,app.kubernetes.io/name=fluent-bit,!canary,env in (prod,staging)")
	}
}

// TestMatchDoesNotAllocate pins the zero-allocation promise of Matches and
// Match (allocation counts, unlike timings, are deterministic).
func TestMatchDoesNotAllocate(t *testing.T) {
	pod, node := realisticPod(), realisticNode()
	s, err := Compile(realisticSelector())
	if err != nil {
		t.Fatal(err)
	}
	gt, err := Parse("kernel-version>0415,gpu notin (true),x<3")
	if err != nil {
		t.Fatal(err)
	}
	m := CompileNode(realisticNodeConstraints())
	for name, f := range map[string]func(){
		"Selector.Matches":           func() { sinkBool = s.Matches(pod) },
		"Selector.Matches Gt/Lt":     func() { sinkBool = gt.Matches(node) },
		"Requirement.Matches Gt":     func() { sinkBool = Requirement{"gpu", api.SelectorOpGt, []string{"1"}}.Matches(node) },
		"NodeMatcher.Match":          func() { sinkBool, _ = m.Match("ip-10-0-12-34", node) },
		"NodeMatcher.Match mismatch": func() { sinkBool, _ = m.Match("n", pod) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times per call, want 0", name, n)
		}
	}
}
