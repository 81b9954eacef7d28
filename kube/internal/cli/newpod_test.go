package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/kube/schema"
)

const wideNow = "2026-03-01T09:00:00Z"

// checkGolden compares got with testdata/name, rewritten with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

// TestPlanWideGolden: plan -o wide on testdata/plan-wide.yaml, each node
// showing one answer of the scheduler (kube/README.md, docs/overhead.md).
// go test ./internal/cli -run TestPlanWideGolden -update rewrites it.
func TestPlanWideGolden(t *testing.T) {
	r := runCLI(t, "", "plan", "-f", "testdata/plan-wide.yaml", "--ds", "kube-system/agent", "--now", wideNow, "-o", "wide")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	checkGolden(t, "plan-wide.table.golden", r.stdout)
}

// planPods runs plan -o json and returns each create's pod by node.
func planPods(t *testing.T, args ...string) (map[string]*schema.NewPod, result) {
	t.Helper()
	r := runCLI(t, "", append([]string{"plan", "--now", wideNow, "-o", "json"}, args...)...)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	var doc schema.Plan
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("not a plan: %v", err)
	}
	out := map[string]*schema.NewPod{}
	for _, cr := range doc.Create {
		out[cr.Node] = cr.Pod
	}
	return out, r
}

func TestPlanNewPods(t *testing.T) {
	pods, r := planPods(t, "-f", "testdata/plan-wide.yaml", "--ds", "kube-system/agent")
	if r.stderr != "" {
		t.Fatalf("stderr %q", r.stderr)
	}
	admitted := func(s *schema.Scheduling) *schema.NewPod {
		return &schema.NewPod{Requests: map[string]string{"cpu": "500m", "memory": "128Mi"}, Priority: 1000,
			PriorityClassName: "agents", PreemptionPolicy: "PreemptLowerPriority", Scheduling: s}
	}
	tests := []struct {
		name, reason, node string
		want               *schema.NewPod
	}{{
		name: "room", node: "node-a-room",
		reason: "admitted: the limit stands for the request (AD1), memory from the LimitRange default (AD2), priority from the class (AD4); it fits",
		want:   admitted(&schema.Scheduling{Outcome: "Fits"}),
	}, {
		name: "equal priority", node: "node-b-equal",
		reason: "only strictly lower priorities are preempted (SC4): it stays Pending",
		want:   admitted(&schema.Scheduling{Outcome: "Pending", Reason: "NoLowerPriority", Insufficient: []string{"cpu"}}),
	}, {
		name: "budget", node: "node-c-preempt",
		reason: "the pod a budget protects is reprieved first, the other goes (SC7, SC8)",
		want:   admitted(&schema.Scheduling{Outcome: "Preempts", Insufficient: []string{"cpu"}, Victims: []string{"shop/report"}}),
	}, {
		name: "host port", node: "node-d-port",
		reason: "a host port held by a lower-priority pod is freed by preempting it (F5, SC5)",
		want:   admitted(&schema.Scheduling{Outcome: "Preempts", PortConflicts: []string{"9100/TCP"}, Victims: []string{"monitoring/old-exporter"}}),
	}, {
		name: "larger than the node", node: "node-e-small",
		reason: "a request above allocatable cannot be helped (SC3)",
		want:   admitted(&schema.Scheduling{Outcome: "Pending", Reason: "LargerThanNode", Insufficient: []string{"cpu"}}),
	}, {
		name: "nominated", node: "node-f-nominated",
		reason: "a higher-priority pod nominated for the node keeps its room and is no victim (F8)",
		want:   admitted(&schema.Scheduling{Outcome: "Pending", Reason: "NoLowerPriority", Insufficient: []string{"cpu"}}),
	}, {
		name: "no allocatable", node: "node-g-unknown",
		reason: "without status.allocatable the pod is admitted but not scheduled: scheduling is null",
		want:   admitted(nil),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, pods[tt.node]); d != "" {
				t.Errorf("create on %s: pod mismatch (-want +got), %s:\n%s", tt.node, tt.reason, d)
			}
		})
	}
}

// TestPlanNewPodsMissingObjects: a class named but not given is said on
// stderr, never guessed.
func TestPlanNewPodsMissingObjects(t *testing.T) {
	noAdmission := writeTemp(t, "plain.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system, uid: agent-uid}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec:
        priorityClassName: system-node-critical
        containers: [{name: agent, image: "agent:1", resources: {requests: {cpu: 100m}}}]
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "1", pods: "110"}}
`)
	tests := []struct {
		name, reason string
		args         []string
		wantStderr   string
		wantOutcome  string
	}{{
		name:        "RuntimeClass not given",
		reason:      "admission objects are given, the RuntimeClass is not among them: the API server refuses the pod (AD6)",
		args:        []string{"-f", "testdata/plan-wide.yaml", "--ds", "kube-system/sandboxed"},
		wantStderr:  `warning: plan: DaemonSet kube-system/sandboxed: the API server refuses its pods: spec.runtimeClassName: Forbidden: pod rejected: RuntimeClass "gvisor" not found` + "\n",
		wantOutcome: "NotCreated",
	}, {
		name:        "no admission object at all",
		reason:      "the class may well exist: the template is taken as written, and the warning says so",
		args:        []string{"-f", noAdmission},
		wantStderr:  "warning: plan: DaemonSet kube-system/agent names PriorityClass system-node-critical, but the input holds no PriorityClass, RuntimeClass or LimitRange: its pods are taken as written (priority 0, no overhead, no LimitRange defaults); include them: kubectl get priorityclasses,runtimeclasses,limitranges -A -o yaml\n",
		wantOutcome: "Fits",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods, r := planPods(t, tt.args...)
			if d := cmp.Diff(tt.wantStderr, r.stderr); d != "" {
				t.Errorf("stderr mismatch (-want +got), %s:\n%s", tt.reason, d)
			}
			for node, p := range pods {
				if p == nil || p.Scheduling == nil || p.Scheduling.Outcome != tt.wantOutcome {
					t.Errorf("create on %s: %+v, want outcome %s (%s)", node, p, tt.wantOutcome, tt.reason)
				}
			}
		})
	}
}

// TestDiffNewPodsGolden: diff of a spec change raising the agent's cpu
// on testdata/diff-fit.yaml (docs/whatif.md, W8). go test ./internal/cli
// -run TestDiffNewPodsGolden -update rewrites it.
func TestDiffNewPodsGolden(t *testing.T) {
	r := runCLI(t, "", "diff", "-f", "testdata/diff-fit.yaml", "--now", wideNow, "--ds-file", "testdata/diff-fit-agent.yaml")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	checkGolden(t, "diff-fit.table.golden", r.stdout)
}

func TestDiffNewPods(t *testing.T) {
	noSurge := writeTemp(t, "nosurge.yaml", strings.Replace(readFile(t, "testdata/diff-fit-agent.yaml"),
		"{maxUnavailable: 0, maxSurge: 1}", "{maxUnavailable: 1, maxSurge: 0}", 1))
	tests := []struct {
		name, reason, dsFile string
		want                 map[string]*schema.Scheduling
	}{{
		name:   "surge",
		reason: "with maxSurge 1 the old pod is still bound when the new one is created: on n2-surge they do not fit together; on n3-preempt the batch pod makes room",
		dsFile: "testdata/diff-fit-agent.yaml",
		want: map[string]*schema.Scheduling{
			"n1-room":    {Outcome: "Fits", Beside: []string{"kube-system/agent-n1-room"}},
			"n2-surge":   {Outcome: "Pending", Reason: "NoLowerPriority", Insufficient: []string{"cpu"}, Beside: []string{"kube-system/agent-n2-surge"}},
			"n3-preempt": {Outcome: "Preempts", Insufficient: []string{"cpu"}, Victims: []string{"shop/batch"}, Beside: []string{"kube-system/agent-n3-preempt"}},
		},
	}, {
		name:   "no surge",
		reason: "with maxSurge 0 the old pod is deleted first: the new one fits alone on n2-surge and n3-preempt",
		dsFile: noSurge,
		want: map[string]*schema.Scheduling{
			"n1-room": {Outcome: "Fits"}, "n2-surge": {Outcome: "Fits"}, "n3-preempt": {Outcome: "Fits"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "", "diff", "-f", "testdata/diff-fit.yaml", "--now", wideNow, "--ds-file", tt.dsFile, "-o", "json")
			if r.code != exitOK {
				t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
			}
			var doc schema.Diff
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatal(err)
			}
			got := map[string]*schema.Scheduling{}
			for _, n := range doc.Nodes {
				if n.NewPod != nil {
					got[n.Name] = n.NewPod.Scheduling
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("diff's new pods mismatch (-want +got), %s:\n%s", tt.reason, d)
			}
		})
	}
}

// genFitPods draws one node's other pods (bound, and with nominated also
// nominated for it) and returns them as YAML items with what they take:
// cpu in millicores, memory in Mi and their number; the host ports they
// bind are drawn from ports.
func genFitPods(t *rapid.T, node string, ports []int, nominated bool) (yaml string, cpu, mem, pods int) {
	n := rapid.IntRange(0, 4).Draw(t, node+"-pods")
	var b strings.Builder
	for k := range n {
		c := rapid.IntRange(0, 1500).Draw(t, "cpu")
		m := rapid.IntRange(0, 2048).Draw(t, "mem")
		prio := rapid.SampledFrom([]int{-10, 0, 10, 1000, 2000000000}).Draw(t, "priority")
		name := fmt.Sprintf("%s-p%d", node, k)
		placement := "nodeName: " + node
		status := "{phase: Running}"
		if nominated && rapid.IntRange(0, 4).Draw(t, "nominated") == 0 {
			placement, status = "", "{phase: Pending, nominatedNodeName: "+node+"}"
		}
		port := ""
		if rapid.Bool().Draw(t, "port") {
			p := rapid.SampledFrom(ports).Draw(t, "hostPort")
			port = fmt.Sprintf(", ports: [{containerPort: %d, hostPort: %d}]", p, p)
		}
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata: {name: %s, namespace: apps, uid: %s}
  spec:
    %s
    priority: %d
    containers: [{name: c, image: "c:1", resources: {requests: {cpu: %dm, memory: %dMi}}%s}]
  status: %s
`, name, name, placement, prio, c, m, port, status)
		cpu, mem, pods = cpu+c, mem+m, pods+1
	}
	return b.String(), cpu, mem, pods
}

// TestPropertyRoomNeverPending: on nodes with room for every pod there,
// bound or nominated, and the daemon pod (cpu, memory and pod count, no
// host port taken twice), whatever the priorities and admission, every
// create of plan fits: never Pending, never a preemption.
func TestPropertyRoomNeverPending(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		dsCPU := rapid.IntRange(0, 2000).Draw(t, "dsCPU")
		limitsOnly := rapid.Bool().Draw(t, "limitsOnly")
		res := fmt.Sprintf("{requests: {cpu: %dm}}", dsCPU)
		if limitsOnly {
			res = fmt.Sprintf("{limits: {cpu: %dm}}", dsCPU)
		}
		class := rapid.SampledFrom([]string{"", "system-node-critical", "agents"}).Draw(t, "class")
		defaultMem := rapid.IntRange(0, 512).Draw(t, "defaultMem")
		var b strings.Builder
		fmt.Fprintf(&b, `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system, uid: agent-uid}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec:
        priorityClassName: "%s"
        containers: [{name: agent, image: "agent:1", resources: %s, ports: [{containerPort: 9100, hostPort: 9100}]}]
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: agents}
  value: 1000
- apiVersion: v1
  kind: LimitRange
  metadata: {name: defaults, namespace: kube-system}
  spec: {limits: [{type: Container, default: {memory: %dMi}}]}
`, class, res, defaultMem)
		nodes := rapid.IntRange(1, 3).Draw(t, "nodes")
		for i := range nodes {
			node := fmt.Sprintf("node-%d", i)
			// The other pods never bind the daemon's port 9100.
			pods, cpu, mem, count := genFitPods(t, node, []int{8080, 9090}, true)
			extra := rapid.IntRange(0, 1000).Draw(t, "extra")
			fmt.Fprintf(&b, `- apiVersion: v1
  kind: Node
  metadata: {name: %s}
  status: {allocatable: {cpu: %dm, memory: %dMi, pods: "%d"}}
%s`, node, cpu+dsCPU+extra, mem+defaultMem+extra, count+1+rapid.IntRange(0, 2).Draw(t, "podsExtra"), pods)
		}
		file := filepath.Join(dir, "room.yaml")
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLIAny("plan", "-f", file, "--now", wideNow, "-o", "json")
		if r.code != exitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var doc schema.Plan
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Create) != nodes {
			t.Fatalf("%d creates, want %d", len(doc.Create), nodes)
		}
		for _, cr := range doc.Create {
			if cr.Pod == nil || cr.Pod.Scheduling == nil || cr.Pod.Scheduling.Outcome != "Fits" {
				t.Fatalf("create on %s: %+v, want Fits on a node with room for everything:\n%s", cr.Node, cr.Pod.Scheduling, b.String())
			}
		}
		wide := runCLIAny("plan", "-f", file, "--now", wideNow, "-o", "wide")
		if wide.code != exitOK || strings.Contains(wide.stdout, "pending") || strings.Contains(wide.stdout, "preempts") ||
			strings.Count(wide.stdout, "   fits\n") != nodes {
			t.Fatalf("plan -o wide: exit %d, want %d creates that fit, none pending or preempting:\n%s", wide.code, nodes, wide.stdout)
		}
	})
}

// TestPropertySurge: the new pod of a spec change fits its node alone but
// not beside the old one (its cpu and the old pod's overrun what is left):
// with maxSurge 1, diff says it does not fit there, beside the old pod;
// with maxSurge 0 (the old pod gone first) it fits.
func TestPropertySurge(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		oldCPU := rapid.IntRange(1, 1000).Draw(t, "oldCPU")
		newCPU := rapid.IntRange(1, 1000).Draw(t, "newCPU")
		// No nominated pods: one of lower priority than the agent would
		// not count, and the room would be more than drawn.
		pods, cpu, mem, count := genFitPods(t, "node-0", []int{8080}, false)
		// Room for the new pod alone, short of room for both.
		alloc := cpu + newCPU + rapid.IntRange(0, oldCPU-1).Draw(t, "slack")
		prio := rapid.SampledFrom([]int{0, 10, 1000}).Draw(t, "priority")
		cluster := fmt.Sprintf(`apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system, uid: agent-uid, generation: 1, annotations: {deprecated.daemonset.template.generation: "1"}}
  spec:
    selector: {matchLabels: {app: agent}}
    updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}
    template:
      metadata: {labels: {app: agent}}
      spec:
        priority: %[1]d
        containers: [{name: agent, image: "agent:1", resources: {requests: {cpu: %[2]dm}}}]
  status: {observedGeneration: 1}
- apiVersion: v1
  kind: Node
  metadata: {name: node-0}
  status: {allocatable: {cpu: %[3]dm, memory: %[4]dMi, pods: "%[5]d"}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: agent-old
    namespace: kube-system
    uid: agent-old
    labels: {app: agent, pod-template-generation: "1"}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: agent-uid, controller: true}]
  spec:
    nodeName: node-0
    priority: %[1]d
    containers: [{name: agent, image: "agent:1", resources: {requests: {cpu: %[2]dm}}}]
  status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
%[6]s`, prio, oldCPU, alloc, mem+1, count+3, pods)
		file := filepath.Join(dir, "surge.yaml")
		if err := os.WriteFile(file, []byte(cluster), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, surge := range []bool{true, false} {
			budget := "{maxUnavailable: 0, maxSurge: 1}"
			if !surge {
				budget = "{maxUnavailable: 1, maxSurge: 0}"
			}
			dsFile := filepath.Join(dir, "agent.yaml")
			ds := fmt.Sprintf(`apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: %s}
  template:
    metadata: {labels: {app: agent}}
    spec:
      priority: %d
      containers: [{name: agent, image: "agent:2", resources: {requests: {cpu: %dm}}}]
`, budget, prio, newCPU)
			if err := os.WriteFile(dsFile, []byte(ds), 0o644); err != nil {
				t.Fatal(err)
			}
			doc, table := runDiffT(t, file, "--ds-file", dsFile)
			n := doc.Nodes[0]
			if n.NewPod == nil || n.NewPod.Scheduling == nil {
				t.Fatalf("maxSurge %v: no new pod judged on node-0: %+v\n%s", surge, n, table)
			}
			s := n.NewPod.Scheduling
			switch {
			case surge && (s.Outcome == "Fits" || !cmp.Equal(s.Beside, []string{"kube-system/agent-old"})):
				t.Fatalf("maxSurge 1: %+v, want not Fits, beside kube-system/agent-old:\n%s\n%s", s, cluster, table)
			case surge && !strings.Contains(table, "beside kube-system/agent-old"):
				t.Fatalf("maxSurge 1: the table does not say it:\n%s", table)
			case !surge && s.Outcome != "Fits":
				t.Fatalf("maxSurge 0: %+v, want Fits alone:\n%s\n%s", s, cluster, table)
			}
		}
	})
}

// TestPlanNewPodsResources: extended resources and the pod count, as the
// scheduler's NodeResourcesFit counts them (F1, F4), through plan -o json.
func TestPlanNewPodsResources(t *testing.T) {
	file := writeTemp(t, "gpu.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: gpu-agent, namespace: kube-system, uid: gpu-uid}
  spec:
    selector: {matchLabels: {app: gpu-agent}}
    template:
      metadata: {labels: {app: gpu-agent}}
      spec:
        priority: 100
        containers: [{name: agent, image: "agent:1", resources: {limits: {example.com/gpu: "1"}}}]
- apiVersion: v1
  kind: Node
  metadata: {name: no-gpu}
  status: {allocatable: {cpu: "2", pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: gpu-taken}
  status: {allocatable: {cpu: "2", pods: "110", example.com/gpu: "1"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: train, namespace: ml, uid: train}
  spec:
    nodeName: gpu-taken
    containers: [{name: c, image: "c:1", resources: {limits: {example.com/gpu: "1"}}}]
  status: {phase: Running}
- apiVersion: v1
  kind: Node
  metadata: {name: gpu-full-pods}
  status: {allocatable: {cpu: "2", pods: "1", example.com/gpu: "1"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: critical, namespace: ml, uid: critical}
  spec:
    nodeName: gpu-full-pods
    priority: 1000
    containers: [{name: c, image: "c:1"}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: done, namespace: ml, uid: done}
  spec:
    nodeName: gpu-full-pods
    containers: [{name: c, image: "c:1", resources: {limits: {example.com/gpu: "1"}}}]
  status: {phase: Succeeded}
`)
	pods, r := planPods(t, "-f", file)
	if r.stderr != "" {
		t.Fatalf("stderr %q", r.stderr)
	}
	tests := []struct {
		name, reason, node string
		want               *schema.Scheduling
	}{{
		name: "resource the node lacks", node: "no-gpu",
		reason: "an extended resource the node does not list is none: larger than the node, no preemption (F4, SC3)",
		want:   &schema.Scheduling{Outcome: "Pending", Reason: "LargerThanNode", Insufficient: []string{"example.com/gpu"}},
	}, {
		name: "resource taken", node: "gpu-taken",
		reason: "the limit stands for the request (Q1); the lower-priority pod holding the device is preempted",
		want:   &schema.Scheduling{Outcome: "Preempts", Insufficient: []string{"example.com/gpu"}, Victims: []string{"ml/train"}},
	}, {
		name: "pod count", node: "gpu-full-pods",
		reason: "a node at its pod count holding only a higher-priority pod: the finished pod counts for nothing (F1, SC4)",
		want:   &schema.Scheduling{Outcome: "Pending", Reason: "NoLowerPriority", Insufficient: []string{"pods"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pods[tt.node]
			if p == nil {
				t.Fatalf("no pod for the create on %s", tt.node)
			}
			if d := cmp.Diff(tt.want, p.Scheduling); d != "" {
				t.Errorf("create on %s: scheduling mismatch (-want +got), %s:\n%s", tt.node, tt.reason, d)
			}
		})
	}
}

// TestPlanNewPodsBadAdmissionObject: an admission object the API server
// would refuse leaves the plan as it is; the new pods are not judged, and
// stderr says why, naming the object's position and field.
func TestPlanNewPodsBadAdmissionObject(t *testing.T) {
	file := writeTemp(t, "bad.yaml", readFile(t, "testdata/plan-wide.yaml")+`- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: odd}
  value: 5
  preemptionPolicy: Sometimes
`)
	pods, r := planPods(t, "-f", file, "--ds", "kube-system/agent")
	for node, p := range pods {
		if p != nil {
			t.Errorf("create on %s judged with an admission object refused: %+v", node, p)
		}
	}
	if len(pods) != 7 {
		t.Errorf("%d creates, want the plan's 7", len(pods))
	}
	for _, want := range []string{"warning: plan: the new pods are not judged (admission, fit, preemption): ", "PriorityClass odd", "preemptionPolicy: Unsupported value: \"Sometimes\""} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
