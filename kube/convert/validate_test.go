package convert_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
)

func TestValidateObjects(t *testing.T) {
	nodeWith := func(taints ...corev1.Taint) *corev1.Node {
		n := &corev1.Node{}
		n.Name = "n"
		n.Spec.Taints = taints
		return n
	}
	podWith := func(edit func(*corev1.PodSpec)) *corev1.Pod {
		p := &corev1.Pod{}
		p.Name = "p"
		edit(&p.Spec)
		return p
	}
	tests := []struct {
		name   string
		reason string
		nodes  []*corev1.Node
		pods   []*corev1.Pod
		want   []string
	}{
		{"clean", "valid taints, tolerations and affinity: no finding",
			[]*corev1.Node{nodeWith(corev1.Taint{Key: "k", Effect: corev1.TaintEffectNoSchedule})},
			[]*corev1.Pod{podWith(func(s *corev1.PodSpec) {
				s.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
			})}, nil},
		{"taint effect typo", "NoSchedul is no effect: the API server rejects the node, the planner would ignore the taint",
			[]*corev1.Node{nodeWith(corev1.Taint{Key: "k", Effect: "NoSchedul"})}, nil,
			[]string{`nodes[0].spec.taints[0].effect: Unsupported value: "NoSchedul": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}},
		{"taint without effect", "a node taint needs an effect",
			[]*corev1.Node{nodeWith(corev1.Taint{Key: "k"})}, nil,
			[]string{`nodes[0].spec.taints[0].effect: Required value`}},
		{"taint twice", "a key and effect pair given twice",
			[]*corev1.Node{nodeWith(corev1.Taint{Key: "k", Effect: corev1.TaintEffectNoSchedule}, corev1.Taint{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule})}, nil,
			[]string{`nodes[0].spec.taints[1]: Duplicate value: "k": taints must be unique by key and effect pair`}},
		{"toleration operator typo", "Exist is no operator",
			nil, []*corev1.Pod{podWith(func(s *corev1.PodSpec) {
				s.Tolerations = []corev1.Toleration{{Key: "k", Operator: "Exist"}}
			})},
			[]string{`pods[0].spec.tolerations[0].operator: Unsupported value: "Exist": supported values: "Equal", "Exists"`}},
		{"selector operator typo", "in is no node selector operator (they are case-sensitive)",
			nil, []*corev1.Pod{podWith(func(s *corev1.PodSpec) {
				s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "k", Operator: "in", Values: []string{"v"}}}}}}}}
			})},
			[]string{`pods[0].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "in": not a valid selector operator`}},
		{"nil elements", "nil nodes and pods are skipped", []*corev1.Node{nil}, []*corev1.Pod{nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range convert.ValidateObjects(tt.nodes, tt.pods, api.ValidateOptions{}) {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, d)
			}
		})
	}
}
