package placement_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
)

// benchDaemonSet is a realistic node agent: a two-key nodeSelector, two
// required affinity terms and six tolerations of its own.
func benchDaemonSet() *api.DaemonSet {
	secs := int64(300)
	return &api.DaemonSet{
		Namespace: "kube-system",
		Name:      "node-agent",
		UID:       "agent-uid",
		Selector:  &api.LabelSelector{MatchLabels: map[string]string{"app": "node-agent"}},
		Template: api.PodTemplate{
			Labels:       map[string]string{"app": "node-agent"},
			NodeSelector: map[string]string{"kubernetes.io/os": "linux", "example.com/pool": "general"},
			RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{
				{MatchExpressions: []api.NodeSelectorRequirement{
					{Key: "kubernetes.io/arch", Operator: api.SelectorOpIn, Values: []string{"arm64"}},
					{Key: "example.com/gpu", Operator: api.SelectorOpExists},
				}},
				{MatchExpressions: []api.NodeSelectorRequirement{
					{Key: "kubernetes.io/arch", Operator: api.SelectorOpIn, Values: []string{"amd64", "arm64"}},
					{Key: "node.kubernetes.io/instance-type", Operator: api.SelectorOpNotIn, Values: []string{"t3.nano", "t3.micro"}},
				}},
			}},
			Tolerations: []api.Toleration{
				{Key: "CriticalAddonsOnly", Operator: api.TolerationOpExists},
				{Key: "example.com/team", Operator: api.TolerationOpEqual, Value: "platform", Effect: api.TaintEffectNoSchedule},
				{Key: "node-role.kubernetes.io/control-plane", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
				{Key: "example.com/dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule},
				{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &secs},
				{Key: "nvidia.com/gpu", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
			},
			HostNetwork: true,
		},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Int(1)}},
	}
}

// benchNode is a cloud node with 20 labels and 5 taints, every
// NoSchedule/NoExecute one tolerated by benchDaemonSet, so Decide checks
// everything and answers Eligible.
func benchNode(name string) *api.Node {
	labels := map[string]string{
		"kubernetes.io/os":                         "linux",
		"kubernetes.io/arch":                       "amd64",
		"kubernetes.io/hostname":                   name,
		"example.com/pool":                         "general",
		"node.kubernetes.io/instance-type":         "m5.2xlarge",
		"topology.kubernetes.io/region":            "eu-west-1",
		"topology.kubernetes.io/zone":              "eu-west-1a",
		"beta.kubernetes.io/os":                    "linux",
		"beta.kubernetes.io/arch":                  "amd64",
		"beta.kubernetes.io/instance-type":         "m5.2xlarge",
		"failure-domain.beta.kubernetes.io/region": "eu-west-1",
		"failure-domain.beta.kubernetes.io/zone":   "eu-west-1a",
		"node.kubernetes.io/lifecycle":             "on-demand",
		"example.com/team":                         "platform",
		"example.com/cost-center":                  "1234",
		"example.com/env":                          "prod",
		"example.com/rack":                         "r12",
		"example.com/kernel":                       "6.8",
		"example.com/image":                        "ubuntu-2404",
		"example.com/node-group":                   "general-a",
	}
	return &api.Node{Name: name, Labels: labels, Taints: []api.Taint{
		{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule},
		{Key: "example.com/dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule},
		{Key: "example.com/spot", Value: "true", Effect: api.TaintEffectPreferNoSchedule},
		{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule},
		{Key: "nvidia.com/gpu", Value: "present", Effect: api.TaintEffectNoExecute},
	}}
}

func benchEligibility() (*placement.Eligibility, *api.Node) {
	return placement.NewEligibility(benchDaemonSet(), placement.Options{}), benchNode("node-000001")
}

var sinkDecision placement.Decision

func BenchmarkDecide(b *testing.B) {
	e, node := benchEligibility()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkDecision = e.Decide(node)
	}
}

// benchCluster builds n nodes sharing benchNode's labels and taints and
// about n pods: one per node, except that every 50th node holds a younger
// duplicate, every 100th a failed pod besides its running one, and every
// 200th none; every 500th node lacks the pool label.
func benchCluster(n int) (*api.DaemonSet, []api.Node, []api.Pod) {
	ds := benchDaemonSet()
	proto := benchNode("")
	nodes := make([]api.Node, n)
	pods := make([]api.Pod, 0, n+n/50+n/100)
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: ds.Name, UID: ds.UID}
	labels := map[string]string{"app": "node-agent", api.LabelRevisionHash: "h1"}
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	addPod := func(node string, k int, phase api.PodPhase) {
		pods = append(pods, api.Pod{
			Namespace: ds.Namespace, Name: fmt.Sprintf("node-agent-%s-%d", node, k), Labels: labels,
			Controller: owner, NodeName: node, Phase: phase, Ready: phase == api.PodRunning,
			Created: created.Add(time.Duration(k) * time.Minute),
		})
	}
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		nodes[i] = api.Node{Name: name, Labels: proto.Labels, Taints: proto.Taints}
		if i%500 == 499 {
			nodes[i].Labels = map[string]string{"kubernetes.io/os": "linux"}
		}
		if i%200 == 199 {
			continue
		}
		addPod(name, 0, api.PodRunning)
		if i%50 == 0 {
			addPod(name, 1, api.PodRunning)
		}
		if i%100 == 1 {
			addPod(name, 2, api.PodFailed)
		}
	}
	return ds, nodes, pods
}

var (
	sinkPlan   placement.ManagePlan
	sinkStatus api.Status
	sinkResult reference.Result
)

var benchSizes = []int{1000, 10000, 100000}

func BenchmarkManage(b *testing.B) {
	now := time.Date(2025, 1, 1, 1, 0, 0, 0, time.UTC)
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			ds, nodes, pods := benchCluster(n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, err := placement.Compile(ds, placement.Options{})
				if err != nil {
					b.Fatal(err)
				}
				ix, err := c.Index(nodes, pods)
				if err != nil {
					b.Fatal(err)
				}
				if sinkPlan, err = ix.Manage(now, "h1", nil); err != nil {
					b.Fatal(err)
				}
				sinkStatus = ix.Status(now, "h1")
			}
		})
	}
}

func BenchmarkReferenceManage(b *testing.B) {
	now := time.Date(2025, 1, 1, 1, 0, 0, 0, time.UTC)
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			ds, nodes, pods := benchCluster(n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sinkResult = reference.Manage(ds, nodes, pods, now, "h1", nil)
			}
		})
	}
}
