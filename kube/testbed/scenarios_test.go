package testbed

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func intOrString(n int32) *intstr.IntOrString { v := intstr.FromInt32(n); return &v }

// TestScenarios runs each scenario under both controllers, each on a
// fresh control plane, and compares them (compareRuns).
func TestScenarios(t *testing.T) {
	three := nodeNames(0, 3)
	six := nodeNames(0, 6)
	for _, sc := range []scenario{
		{
			// The rollout that stalled until the one-minute resync
			// (issue 26, finding 1): the surge pod turns Ready and
			// only a requeue after minReadySeconds sees it available.
			name:  "surge-minready",
			nodes: three,
			ds: func(ds *appsv1.DaemonSet) {
				ds.Spec.MinReadySeconds = 2
				ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: intOrString(1), MaxUnavailable: intOrString(0)}
			},
			phases: []phase{
				{name: "rollout", do: setImage("agent:v2"), done: converged("agent:v2", three), unavailable: limit(0), perNode: 2},
			},
		},
		{
			name:  "maxunavailable-2",
			nodes: six,
			ds: func(ds *appsv1.DaemonSet) {
				ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = intOrString(2)
			},
			phases: []phase{
				{name: "rollout", do: setImage("agent:v2"), done: converged("agent:v2", six), unavailable: limit(2)},
			},
		},
		placementScenario(),
		{
			// Two nodes added and one removed while a maxUnavailable 2
			// rollout runs. The added nodes count as unavailable in
			// the recorder until their pods are ready; upstream's
			// budget counts only nodes that have a pod: the limit is
			// maxUnavailable + 2.
			name:  "node-churn",
			nodes: six,
			ds: func(ds *appsv1.DaemonSet) {
				ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = intOrString(2)
			},
			phases: []phase{{
				name: "rollout",
				do: func(s *scen) {
					setImage("agent:v2")(s)
					s.waitFor("a ready pod of agent:v2", func(st State) bool { return readyPod(st, "", "agent:v2") != nil })
					s.createNode("node-6")
					s.createNode("node-7")
					s.deleteNode("node-0")
					s.rec.SetNodes(nodeNames(1, 7))
				},
				done:        converged("agent:v2", nodeNames(1, 7)),
				unavailable: limit(4),
			}},
		},
		{
			// A pod fails three times on node-1: the controller deletes
			// it and creates another, the second and third time after
			// the failed-pod backoff (1 s, then 2 s).
			name:  "failed-pods",
			nodes: three,
			phases: []phase{{
				name: "fail",
				do: func(s *scen) {
					var failed []string
					for range 3 {
						var pod *corev1.Pod
						s.waitFor("a new ready pod on node-1", func(st State) bool {
							pod = readyPod(st, "node-1", "")
							for _, f := range failed {
								if pod != nil && pod.Name == f {
									return false
								}
							}
							return pod != nil
						})
						s.failPod(pod)
						failed = append(failed, pod.Name)
					}
				},
				done:        converged("agent:v1", three),
				unavailable: limit(1),
			}},
		},
		{
			// OnDelete: a new template updates no pod; the pods the test
			// deletes come back with it.
			name:  "ondelete",
			nodes: three,
			ds: func(ds *appsv1.DaemonSet) {
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
			},
			phases: []phase{
				{name: "image", do: setImage("agent:v2"), done: idle("agent:v1", three), settle: 3 * time.Second, unavailable: limit(0)},
				{
					name: "delete-pods",
					do: func(s *scen) {
						for _, p := range s.rec.state().Pods {
							if err := s.b.Client.CoreV1().Pods(namespace).Delete(s.ctx, p.Name, metav1.DeleteOptions{}); err != nil {
								s.t.Fatal(err)
							}
						}
					},
					done: converged("agent:v2", three),
				},
			},
		},
		{
			// A new image, then back to the old one once a pod of the
			// new one is ready: the old revision is reused with a new
			// number.
			name:  "rollback",
			nodes: nodeNames(0, 4),
			phases: []phase{{
				name: "rollback",
				do: func(s *scen) {
					setImage("agent:v2")(s)
					s.waitFor("a ready pod of agent:v2", func(st State) bool { return readyPod(st, "", "agent:v2") != nil })
					setImage("agent:v1")(s)
				},
				done:        converged("agent:v1", nodeNames(0, 4)),
				unavailable: limit(1),
			}},
		},
		{
			// Two ready pods with the DaemonSet's labels and no owner,
			// on node-0 and node-1, before the controller starts: it
			// adopts them and, as they have no revision hash, replaces
			// them.
			name:  "adoption",
			nodes: three,
			before: func(s *scen) {
				for _, node := range []string{"node-0", "node-1"} {
					grace := int64(1)
					pod := &corev1.Pod{
						ObjectMeta: metav1.ObjectMeta{Name: "orphan-" + node, Namespace: namespace, Labels: map[string]string{"app": dsName}},
						Spec: corev1.PodSpec{
							NodeName:                      node,
							Containers:                    []corev1.Container{{Name: dsName, Image: "agent:v1"}},
							TerminationGracePeriodSeconds: &grace,
						},
					}
					if _, err := s.b.Client.CoreV1().Pods(namespace).Create(s.ctx, pod, metav1.CreateOptions{}); err != nil {
						s.t.Fatal(err)
					}
				}
				s.waitFor("the orphans ready", func(st State) bool {
					return readyPod(st, "node-0", "") != nil && readyPod(st, "node-1", "") != nil
				})
			},
			phases: []phase{},
		},
		{
			// The DaemonSet deleted (propagation Background): the
			// garbage collector deletes its pods; neither controller
			// may write anything after the deletion.
			name:  "deleted",
			nodes: three,
			gc:    true,
			phases: []phase{
				{name: "delete", do: func(s *scen) {
					bg := metav1.DeletePropagationBackground
					if err := s.b.Client.AppsV1().DaemonSets(namespace).Delete(s.ctx, dsName, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
						s.t.Fatal(err)
					}
				}, done: gone, deleted: true},
			},
		},
	} {
		t.Run(sc.name, func(t *testing.T) { runScenario(t, sc) })
	}
}

// placementScenario: the DaemonSet selects nodes labelled role=agent, on
// four nodes of which three are. Then: a label added (node-3), a label
// removed (node-0); a NoSchedule taint on node-1, which keeps its pod,
// and on node-0 with its label back, which gets none; a NoExecute taint
// on node-2, which loses its pod; node-2 without it but cordoned (with
// the unschedulable taint, as the node lifecycle controller adds it),
// which gets a pod again: daemon pods tolerate it.
func placementScenario() scenario {
	const role = "role"
	noSchedule := corev1.Taint{Key: "dedicated", Value: "other", Effect: corev1.TaintEffectNoSchedule}
	noExecute := corev1.Taint{Key: "evict", Value: "now", Effect: corev1.TaintEffectNoExecute}
	unschedulable := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	n := func(is ...int) []string {
		out := make([]string, len(is))
		for i, x := range is {
			out[i] = nodeNames(x, 1)[0]
		}
		return out
	}
	return scenario{
		name:  "placement",
		nodes: nodeNames(0, 4),
		labels: func(node string) map[string]string {
			if node == "node-3" {
				return nil
			}
			return map[string]string{role: "agent"}
		},
		ds: func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.NodeSelector = map[string]string{role: "agent"}
		},
		createNodes: n(0, 1, 2),
		phases: []phase{
			{name: "label-add", nodes: n(0, 1, 2, 3), done: converged("agent:v1", n(0, 1, 2, 3)), do: func(s *scen) {
				s.updateNode("node-3", func(no *corev1.Node) { no.Labels[role] = "agent" })
			}},
			{name: "label-remove", nodes: n(1, 2, 3), done: converged("agent:v1", n(1, 2, 3)), do: func(s *scen) {
				s.updateNode("node-0", func(no *corev1.Node) { delete(no.Labels, role) })
			}},
			// node-1 is not desired any more, but keeps its pod, which
			// the status counts as misscheduled. Upstream writes that
			// status only at its next sync of the DaemonSet: its node
			// update handler (syncNodeUpdate) enqueues it only when a
			// node needs a pod or must lose one, or the status already
			// counts misscheduled pods; daemonplan's syncs on any node
			// change. Only the pods are checked here.
			{name: "noschedule", nodes: n(1, 2, 3), done: podsOn("agent:v1", n(1, 2, 3)), settle: 3 * time.Second, do: func(s *scen) {
				s.updateNode("node-1", func(no *corev1.Node) { no.Spec.Taints = append(no.Spec.Taints, noSchedule) })
				s.updateNode("node-0", func(no *corev1.Node) {
					no.Spec.Taints = append(no.Spec.Taints, noSchedule)
					no.Labels[role] = "agent"
				})
			}},
			{name: "noexecute", nodes: n(1, 3), done: convergedWith("agent:v1", n(1, 3), 1), do: func(s *scen) {
				s.updateNode("node-2", func(no *corev1.Node) { no.Spec.Taints = append(no.Spec.Taints, noExecute) })
			}},
			{name: "cordon", nodes: n(1, 2, 3), done: convergedWith("agent:v1", n(1, 2, 3), 2), do: func(s *scen) {
				s.updateNode("node-2", func(no *corev1.Node) {
					no.Spec.Taints = []corev1.Taint{unschedulable}
					no.Spec.Unschedulable = true
				})
			}},
		},
	}
}
