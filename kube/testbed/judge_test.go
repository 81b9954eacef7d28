package testbed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/live"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/overhead"
	dpresource "github.com/daemonplan/daemonplan/resource"
)

// The differential judge of admission, fit and preemption
// (docs/overhead.md, "The judge"): each case is a small cluster of its
// own (a namespace, its nodes, PriorityClasses, RuntimeClasses, a
// LimitRange, workload pods bound to the nodes with priorities and start
// times, PodDisruptionBudgets) and one DaemonSet, created on one shared
// control plane that runs the real DaemonSet controller and the real
// kube-scheduler. What happens on each node (the daemon pod bound, Pending
// with the scheduler's reasons, the pods preempted) is compared field by
// field with daemonplan's prediction from the same objects read back
// from the API server, as the CLI reads them (live.ReadAdmission,
// convert, admission.Compile, overhead.Compile and Catalog.Schedule).

// jNode is a node of a case: its name (under the case's namespace) and
// its capacity, which is its allocatable too.
type jNode struct {
	name  string
	alloc corev1.ResourceList
}

// jPod is a workload pod bound to a node of the case.
type jPod struct {
	name, node string
	// class is its PriorityClass (a case's name, or a system class), ""
	// for none.
	class     string
	req, lim  corev1.ResourceList
	hostPort  int32
	labels    map[string]string
	startedAt int // seconds after the case's base time: distinct per node
}

// jPDB is a PodDisruptionBudget selecting pods by labels, with the
// disruptions it allows (status.disruptionsAllowed, as the disruption
// controller, which does not run here, would write it).
type jPDB struct {
	name    string
	match   map[string]string
	allowed int32
}

// jCase is one cluster of the judge. PriorityClass and RuntimeClass
// names are the case's own ("high"), made unique on the control plane by
// the case's namespace; names starting with "system-" are the built-in
// classes.
type jCase struct {
	name     string
	nodes    []jNode
	classes  []schedulingv1.PriorityClass
	runtimes []nodev1.RuntimeClass
	// limits, if set, is the namespace's LimitRange.
	limits []corev1.LimitRangeItem
	pods   []jPod
	pdbs   []jPDB
	// The DaemonSet's pod: its containers, class and runtime class.
	containers []corev1.Container
	class      string
	runtime    string
	// want is what the named cases expect per node (its Outcome); the
	// generated ones expect only that real and predicted agree.
	want map[string]string
}

// jOutcome is what happens to the daemon pod on one node, compared field
// by field.
type jOutcome struct {
	// Outcome is Fits, Pending, Preempts or NotCreated.
	Outcome string
	// Reason is a Pending pod's reason for not preempting
	// (overhead.PendingReason).
	Reason string `json:",omitempty"`
	// Insufficient and PortConflict are why a Pending pod does not fit.
	Insufficient []string `json:",omitempty"`
	PortConflict bool     `json:",omitempty"`
	// Victims are the workload pods preempted, by name, sorted.
	Victims []string `json:",omitempty"`
	// Requests and Priority are the daemon pod's as admitted (cpu in
	// millicores, everything else in units), when it is created.
	Requests map[string]int64 `json:",omitempty"`
	Priority int32
}

// TestJudge runs the named cases and TESTBED_JUDGE_CASES (24) generated
// ones (seed TESTBED_JUDGE_SEED, 1) on one control plane with
// kube-scheduler, four at a time, and fails on every mismatch between
// what happened and daemonplan's prediction.
func TestJudge(t *testing.T) {
	n, seed := envInt(t, "TESTBED_JUDGE_CASES", 24), envInt(t, "TESTBED_JUDGE_SEED", 1)
	b := startBed(t, "judge", Options{Scheduler: true})
	ctrl, err := StartUpstream(b.Config)
	if err != nil {
		t.Fatal(err)
	}
	defer ctrl.Stop()
	cases := namedCases()
	for i := range n {
		cases = append(cases, genCase(rand.New(rand.NewPCG(uint64(seed), uint64(i))), fmt.Sprintf("gen-%d", i)))
	}
	type result struct {
		c          jCase
		real, pred map[string]jOutcome
		err        error
	}
	start := time.Now()
	results := make([]result, len(cases))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range work {
				r := &results[i]
				r.c = cases[i]
				r.real, r.pred, r.err = runJudgeCase(b.Client, cases[i])
			}
		})
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()
	mismatches, nodes := 0, 0
	outcomes := map[string]int{}
	for _, r := range results {
		if r.err != nil {
			t.Errorf("case %s: %v", r.c.name, r.err)
			continue
		}
		for _, node := range slices.Sorted(mapKeys(r.real)) {
			nodes++
			outcomes[r.real[node].Outcome]++
			if d := cmp.Diff(r.real[node], r.pred[node]); d != "" {
				mismatches++
				t.Errorf("case %s, node %s: real (-) vs predicted (+):\n%s", r.c.name, node, d)
			}
			if w, ok := r.c.want[node]; ok && r.real[node].Outcome != w {
				t.Errorf("case %s, node %s: the scheduler's outcome is %s; the case expects %s", r.c.name, node, r.real[node].Outcome, w)
			}
		}
	}
	t.Logf("judge: %d cases (%d named, %d generated with seed %d), %d nodes (%v), %d mismatches, in %v",
		len(cases), len(cases)-n, n, seed, nodes, outcomes, mismatches, time.Since(start).Round(time.Millisecond))
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// nsName names a case's cluster-scoped object: system classes keep
// their name.
func nsName(ns, name string) string {
	if name == "" || strings.HasPrefix(name, "system-") {
		return name
	}
	return ns + "-" + name
}

// runJudgeCase creates c on the control plane, predicts, creates the
// DaemonSet, waits for the outcome on every node, and removes what it
// created.
func runJudgeCase(client kubernetes.Interface, c jCase) (real, pred map[string]jOutcome, err error) {
	ctx := context.Background()
	ns := "judge-" + c.name
	defer cleanupCase(client, ns, c)
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, nil, err
	}
	for _, pc := range c.classes {
		pc.Name = nsName(ns, pc.Name)
		if _, err := client.SchedulingV1().PriorityClasses().Create(ctx, &pc, metav1.CreateOptions{}); err != nil {
			return nil, nil, fmt.Errorf("PriorityClass %s: %w", pc.Name, err)
		}
	}
	for _, rc := range c.runtimes {
		rc.Name = nsName(ns, rc.Name)
		if _, err := client.NodeV1().RuntimeClasses().Create(ctx, &rc, metav1.CreateOptions{}); err != nil {
			return nil, nil, fmt.Errorf("RuntimeClass %s: %w", rc.Name, err)
		}
	}
	if c.limits != nil {
		lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: c.limits}}
		if _, err := client.CoreV1().LimitRanges(ns).Create(ctx, lr, metav1.CreateOptions{}); err != nil {
			return nil, nil, fmt.Errorf("LimitRange: %w", err)
		}
	}
	for _, n := range c.nodes {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + n.name, Labels: map[string]string{"type": "kwok", "judge": ns}},
			Status:     corev1.NodeStatus{Capacity: n.alloc, Allocatable: n.alloc},
		}
		if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return nil, nil, fmt.Errorf("node %s: %w", node.Name, err)
		}
	}
	for _, p := range c.pods {
		ctr := corev1.Container{Name: "work", Image: "work:v1", Resources: corev1.ResourceRequirements{Requests: p.req, Limits: p.lim}}
		if p.hostPort != 0 {
			ctr.Ports = []corev1.ContainerPort{{ContainerPort: p.hostPort, HostPort: p.hostPort}}
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: ns, Labels: p.labels},
			Spec: corev1.PodSpec{
				NodeName: ns + "-" + p.node, PriorityClassName: nsName(ns, p.class),
				Containers: []corev1.Container{ctr}, TerminationGracePeriodSeconds: ptr.To[int64](0),
			},
		}
		if _, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return nil, nil, fmt.Errorf("pod %s: %w", p.name, err)
		}
	}
	for _, d := range c.pdbs {
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: ns},
			Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: d.match}, MinAvailable: ptr.To(intstr.FromInt32(1))},
		}
		got, err := client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("PDB %s: %w", d.name, err)
		}
		got.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: got.Generation, DisruptionsAllowed: d.allowed, CurrentHealthy: 1 + d.allowed, DesiredHealthy: 1, ExpectedPods: 1 + d.allowed}
		if _, err := client.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
			return nil, nil, fmt.Errorf("PDB %s status: %w", d.name, err)
		}
	}
	// The workload pods run (kwok), then get the start times of the case:
	// preemption orders its victims by them, and kwok's are equal to the
	// second.
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, p := range c.pods {
		err := waitUntil(time.Minute, func() (bool, error) {
			pod, err := client.CoreV1().Pods(ns).Get(ctx, p.name, metav1.GetOptions{})
			if err != nil || pod.Status.Phase != corev1.PodRunning {
				return false, err
			}
			pod.Status.StartTime = ptr.To(metav1.NewTime(base.Add(time.Duration(p.startedAt) * time.Second)))
			_, err = client.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
			if apierrors.IsConflict(err) {
				return false, nil
			}
			return err == nil, err
		})
		if err != nil {
			return nil, nil, fmt.Errorf("pod %s running: %w", p.name, err)
		}
	}

	// The prediction's input, read as `daemonplan overhead` reads a live
	// cluster.
	objs := &load.Objects{}
	if err := live.ReadAdmission(ctx, client, ns, true, objs, live.Options{}); err != nil {
		return nil, nil, err
	}
	in, err := convert.AdmissionObjects(objs.LimitRanges, objs.PriorityClasses, objs.RuntimeClasses)
	if err != nil {
		return nil, nil, err
	}
	rules, err := admission.Compile(in)
	if err != nil {
		return nil, nil, err
	}
	var budgets []overhead.DisruptionBudget
	for _, pdb := range objs.PodDisruptionBudgets {
		budgets = append(budgets, convert.DisruptionBudget(pdb))
	}
	states := map[string]*overhead.NodeState{}
	bound := map[string][]string{}
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	for _, n := range c.nodes {
		node, err := client.CoreV1().Nodes().Get(ctx, ns+"-"+n.name, metav1.GetOptions{})
		if err != nil {
			return nil, nil, err
		}
		alloc, err := convert.ResourceList(node.Status.Allocatable)
		if err != nil {
			return nil, nil, err
		}
		st := &overhead.NodeState{Allocatable: alloc, Budgets: budgets}
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.Spec.NodeName != node.Name {
				continue
			}
			u, err := convert.PodUsage(p)
			if err != nil {
				return nil, nil, err
			}
			st.Pods = append(st.Pods, u)
			bound[n.name] = append(bound[n.name], p.Name)
		}
		states[n.name] = st
	}

	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"judge": ns}, Containers: c.containers,
					PriorityClassName: nsName(ns, c.class), TerminationGracePeriodSeconds: ptr.To[int64](0),
				},
			},
		},
	}
	if c.runtime != "" {
		ds.Spec.Template.Spec.RuntimeClassName = ptr.To(nsName(ns, c.runtime))
	}
	stored, err := client.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("DaemonSet: %w", err)
	}
	d, err := convert.DaemonSet(stored)
	if err != nil {
		return nil, nil, err
	}
	cat := overhead.Compile([]*api.DaemonSet{d}, overhead.Options{Admission: rules})
	pred = map[string]jOutcome{}
	for _, n := range c.nodes {
		st := states[n.name]
		s := cat.Schedule(0, st)
		o := jOutcome{Outcome: s.Outcome.String()}
		if s.Outcome != overhead.NotCreated {
			dm := cat.Daemon(0)
			o.Requests, o.Priority = scheduledUnits(dm.Requests), dm.Priority
		}
		switch s.Outcome {
		case overhead.Pending:
			o.Reason, o.Insufficient, o.PortConflict = string(s.Reason), s.Fit.Insufficient, len(s.Fit.PortConflicts) > 0
			if o.PortConflict {
				// The scheduler stops a node's filters at the first that
				// fails, and NodePorts runs before NodeResourcesFit: its
				// message names the port only.
				o.Insufficient = nil
			}
		case overhead.Preempts:
			for _, k := range s.Victims {
				o.Victims = append(o.Victims, st.Pods[k].Name)
			}
			slices.Sort(o.Victims)
		}
		pred[n.name] = o
	}

	real, err = observe(client, ns, c, bound)
	return real, pred, err
}

// observe waits until the daemon pod of every node of c has an outcome
// that holds: bound (Fits, or Preempts when pods bound there before are
// gone), Pending (unschedulable, nominated nowhere, no pod there gone,
// for 2 s), or NotCreated (no pod 10 s after the DaemonSet's creation,
// and the controller's FailedCreate Event).
func observe(client kubernetes.Interface, ns string, c jCase, bound map[string][]string) (map[string]jOutcome, error) {
	ctx := context.Background()
	created := time.Now()
	pendingSince := map[string]time.Time{}
	for {
		pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		present := map[string]bool{}
		daemon := map[string]*corev1.Pod{}
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.Labels["app"] == "agent" {
				daemon[strings.TrimPrefix(affinityNode(p), ns+"-")] = p
			} else if p.DeletionTimestamp == nil {
				present[p.Name] = true
			}
		}
		out := map[string]jOutcome{}
		for _, n := range c.nodes {
			var gone []string
			for _, name := range bound[n.name] {
				if !present[name] {
					gone = append(gone, name)
				}
			}
			p := daemon[n.name]
			if p == nil {
				if time.Since(created) > 10*time.Second {
					refused, err := failedCreate(client, ns)
					if err != nil {
						return nil, err
					}
					if refused {
						out[n.name] = jOutcome{Outcome: overhead.NotCreated.String()}
					}
				}
				continue
			}
			o := jOutcome{Requests: podUnits(p), Priority: ptr.Deref(p.Spec.Priority, 0)}
			if p.Spec.NodeName != "" {
				o.Outcome = overhead.Fits.String()
				if len(gone) > 0 {
					o.Outcome, o.Victims = overhead.Preempts.String(), gone
				}
				out[n.name] = o
				continue
			}
			msg, unschedulable := unschedulableMessage(p)
			if !unschedulable || p.Status.NominatedNodeName != "" || len(gone) > 0 {
				delete(pendingSince, n.name)
				continue
			}
			if _, ok := pendingSince[n.name]; !ok {
				pendingSince[n.name] = time.Now()
			}
			if time.Since(pendingSince[n.name]) < 2*time.Second {
				continue
			}
			o.Outcome = overhead.Pending.String()
			o.Reason, o.Insufficient, o.PortConflict = parseUnschedulable(msg)
			out[n.name] = o
		}
		if len(out) == len(c.nodes) {
			return out, nil
		}
		if time.Since(created) > 90*time.Second {
			return nil, fmt.Errorf("no outcome after 90 s on every node: %v", out)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// failedCreate reports whether the DaemonSet controller said, in an
// Event on the DaemonSet, that a create of its pods failed: on a busy
// machine, no pod 10 s after the DaemonSet's creation is not evidence
// enough.
func failedCreate(client kubernetes.Interface, ns string) (bool, error) {
	evs, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, e := range evs.Items {
		if e.InvolvedObject.Kind == "DaemonSet" && e.Reason == "FailedCreate" {
			return true, nil
		}
	}
	return false, nil
}

func unschedulableMessage(p *corev1.Pod) (string, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.Message, true
		}
	}
	return "", false
}

// parseUnschedulable reads the scheduler's message for a pod it could
// not place ("0/9 nodes are available: 1 Insufficient cpu, 8 node(s)
// didn't match Pod's node affinity/selector. preemption: ...") into the
// fields of overhead's answer: the resources short, whether a host port
// is taken, and why preemption did not help. A reason daemonplan does not
// model is kept as "other: REASON", so that it shows as a mismatch.
func parseUnschedulable(msg string) (reason string, insufficient []string, portConflict bool) {
	filters, post, _ := strings.Cut(msg, " preemption: ")
	_, reasons := histogram(filters)
	for r := range reasons {
		switch {
		case strings.HasPrefix(r, "Insufficient "):
			insufficient = append(insufficient, strings.TrimPrefix(r, "Insufficient "))
		case r == "Too many pods":
			insufficient = append(insufficient, "pods")
		case r == "node(s) didn't have free ports for the requested pod ports":
			portConflict = true
		case r == "node(s) didn't match Pod's node affinity/selector", r == "node(s) didn't satisfy plugin(s) [NodeAffinity]":
			// The nodes of other cases.
		default:
			insufficient = append(insufficient, "other: "+r)
		}
	}
	slices.Sort(insufficient)
	// The preemption part counts every node: those of other cases, which
	// the pod's node affinity rules out, as not helped by preemption.
	all, post2 := histogram(post)
	post2["Preemption is not helpful for scheduling"] -= all - 1
	switch {
	case strings.Contains(post, "preemptionPolicy=Never"):
		reason = string(overhead.PreemptionNever)
	case post2["Preemption is not helpful for scheduling"] > 0:
		reason = string(overhead.LargerThanNode)
	case post2["No preemption victims found for incoming pod"] > 0:
		reason = string(overhead.NoLowerPriority)
	case post != "":
		reason = string(overhead.PreemptionDoesNotHelp)
	default:
		reason = "none given: " + msg
	}
	return reason, insufficient, portConflict
}

// histogram reads "0/N nodes are available: 1 Insufficient cpu, 8
// node(s) didn't match ... ." into N and the count of each reason.
func histogram(msg string) (int, map[string]int) {
	out := map[string]int{}
	head, list, ok := strings.Cut(msg, " nodes are available: ")
	if !ok {
		return 0, out
	}
	var all int
	if _, n, ok := strings.Cut(head, "/"); ok {
		fmt.Sscan(n, &all)
	}
	for _, part := range strings.Split(strings.TrimSuffix(list, "."), ", ") {
		n, r, _ := strings.Cut(part, " ")
		var k int
		fmt.Sscan(n, &k)
		out[r] += k
	}
	return all, out
}

// podUnits is the stored pod's effective requests in the scheduler's
// units (convert.PodUsage, as the CLI reads a pod).
func podUnits(p *corev1.Pod) map[string]int64 {
	u, err := convert.PodUsage(p)
	if err != nil {
		return map[string]int64{"error: " + err.Error(): 0}
	}
	return scheduledUnits(u.Requests)
}

func scheduledUnits(l dpresource.List) map[string]int64 {
	out := map[string]int64{}
	for name, q := range l {
		if name == "cpu" {
			out[name] = q.MilliValue()
		} else {
			out[name] = q.Value()
		}
	}
	return out
}

// cleanupCase deletes what a case created but its namespace (no
// namespace controller runs here): the DaemonSet, its pods and the
// workload's, the nodes, the cluster-scoped classes.
func cleanupCase(client kubernetes.Interface, ns string, c jCase) {
	ctx := context.Background()
	zero := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
	client.AppsV1().DaemonSets(ns).Delete(ctx, "agent", zero)
	for _, n := range c.nodes {
		client.CoreV1().Nodes().Delete(ctx, ns+"-"+n.name, zero)
	}
	client.CoreV1().Pods(ns).DeleteCollection(ctx, zero, metav1.ListOptions{})
	for _, pc := range c.classes {
		client.SchedulingV1().PriorityClasses().Delete(ctx, nsName(ns, pc.Name), zero)
	}
	for _, rc := range c.runtimes {
		client.NodeV1().RuntimeClasses().Delete(ctx, nsName(ns, rc.Name), zero)
	}
	client.PolicyV1().PodDisruptionBudgets(ns).DeleteCollection(ctx, zero, metav1.ListOptions{})
	client.CoreV1().LimitRanges(ns).DeleteCollection(ctx, zero, metav1.ListOptions{})
}

func waitUntil(timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not after %v", timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// rl is a resource list from name=quantity pairs.
func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func ctr(name string, req, lim corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "agent:v1", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}
}

func withPort(c corev1.Container, port int32) corev1.Container {
	c.Ports = []corev1.ContainerPort{{ContainerPort: port, HostPort: port}}
	return c
}

func class(name string, value int32) schedulingv1.PriorityClass {
	return schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
}

const widget = "example.com/widget"

// namedCases are the autoscaler reports of issue 36, each as a cluster.
func namedCases() []jCase {
	never := class("urgent-polite", 100000)
	never.PreemptionPolicy = ptr.To(corev1.PreemptNever)
	return []jCase{{
		// aws/karpenter-provider-aws#3199: LimitRanger's default limits
		// become the requests of containers that set none.
		name:       "limitranger-defaults",
		nodes:      []jNode{{"small", rl("cpu", "1", "memory", "2Gi", "pods", "10")}, {"big", rl("cpu", "2", "memory", "4Gi", "pods", "10")}},
		limits:     []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Default: rl("cpu", "600m", "memory", "512Mi")}},
		containers: []corev1.Container{ctr("a", nil, nil), ctr("b", nil, nil)},
		want:       map[string]string{"small": "Pending", "big": "Fits"},
	}, {
		// aws/karpenter-provider-aws#1573: limits without requests are
		// requested at the limits, before any default request.
		name:       "limits-without-requests",
		nodes:      []jNode{{"half", rl("cpu", "2", "memory", "4Gi", "pods", "10")}, {"room", rl("cpu", "4", "memory", "4Gi", "pods", "10")}},
		limits:     []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, DefaultRequest: rl("cpu", "10m")}},
		pods:       []jPod{{name: "w1", node: "half", req: rl("cpu", "1")}, {name: "w2", node: "room", req: rl("cpu", "1")}},
		containers: []corev1.Container{ctr("a", nil, rl("cpu", "1500m"))},
		want:       map[string]string{"half": "Pending", "room": "Fits"},
	}, {
		// RuntimeClass overhead is requested on top of the containers.
		name:       "runtimeclass-overhead",
		nodes:      []jNode{{"one", rl("cpu", "1", "memory", "1Gi", "pods", "10")}, {"two", rl("cpu", "2", "memory", "1Gi", "pods", "10")}},
		runtimes:   []nodev1.RuntimeClass{{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata", Overhead: &nodev1.Overhead{PodFixed: rl("cpu", "250m", "memory", "160Mi")}}},
		runtime:    "kata",
		containers: []corev1.Container{ctr("a", rl("cpu", "800m"), nil)},
		want:       map[string]string{"one": "Pending", "two": "Fits"},
	}, {
		// A system-node-critical agent preempts the younger of two
		// lower-priority pods; the older is reprieved.
		name:    "critical-agent-preempts",
		nodes:   []jNode{{"full", rl("cpu", "1", "memory", "2Gi", "pods", "10")}},
		classes: []schedulingv1.PriorityClass{class("batch", 10)},
		pods: []jPod{
			{name: "older", node: "full", class: "batch", req: rl("cpu", "400m"), startedAt: 1},
			{name: "younger", node: "full", class: "batch", req: rl("cpu", "400m"), startedAt: 2},
		},
		class:      "system-node-critical",
		containers: []corev1.Container{ctr("a", rl("cpu", "500m"), nil)},
		want:       map[string]string{"full": "Preempts"},
	}, {
		// kubernetes/kubernetes#140984: equal priority is never preempted.
		name:    "equal-priority-pending",
		nodes:   []jNode{{"full", rl("cpu", "1", "memory", "2Gi", "pods", "10")}},
		classes: []schedulingv1.PriorityClass{class("app", 1000)},
		pods: []jPod{
			{name: "w1", node: "full", class: "app", req: rl("cpu", "600m"), startedAt: 1},
		},
		class:      "app",
		containers: []corev1.Container{ctr("a", rl("cpu", "500m"), nil)},
		want:       map[string]string{"full": "Pending"},
	}, {
		// A taken host port: Pending beside a pod of the same priority,
		// preempting one of lower priority.
		name:    "host-port-conflict",
		nodes:   []jNode{{"same", rl("cpu", "4", "memory", "4Gi", "pods", "10")}, {"lower", rl("cpu", "4", "memory", "4Gi", "pods", "10")}},
		classes: []schedulingv1.PriorityClass{class("mon", 500), class("low", 5)},
		pods: []jPod{
			{name: "exporter", node: "same", class: "mon", hostPort: 9100, startedAt: 1},
			{name: "scraper", node: "lower", class: "low", hostPort: 9100, startedAt: 1},
		},
		class:      "mon",
		containers: []corev1.Container{withPort(ctr("a", rl("cpu", "100m"), nil), 9100)},
		want:       map[string]string{"same": "Pending", "lower": "Preempts"},
	}, {
		// An extended resource: short, absent, or there.
		name: "extended-resource",
		nodes: []jNode{
			{"taken", rl("cpu", "4", "memory", "4Gi", "pods", "10", widget, "1")},
			{"none", rl("cpu", "4", "memory", "4Gi", "pods", "10")},
			{"two", rl("cpu", "4", "memory", "4Gi", "pods", "10", widget, "2")},
		},
		pods:       []jPod{{name: "user", node: "taken", req: rl(widget, "1"), lim: rl(widget, "1")}, {name: "user2", node: "two", req: rl(widget, "1"), lim: rl(widget, "1")}},
		containers: []corev1.Container{ctr("a", rl("cpu", "100m", widget, "1"), rl(widget, "1"))},
		want:       map[string]string{"taken": "Pending", "none": "Pending", "two": "Fits"},
	}, {
		// A budget that allows no disruption protects its pod: the
		// unprotected one goes though it is older.
		name:    "pdb-respected",
		nodes:   []jNode{{"full", rl("cpu", "1", "memory", "2Gi", "pods", "10")}},
		classes: []schedulingv1.PriorityClass{class("batch", 10)},
		pods: []jPod{
			{name: "free", node: "full", class: "batch", req: rl("cpu", "500m"), labels: map[string]string{"app": "free"}, startedAt: 1},
			{name: "guarded", node: "full", class: "batch", req: rl("cpu", "500m"), labels: map[string]string{"app": "guarded"}, startedAt: 2},
		},
		pdbs:       []jPDB{{name: "guard", match: map[string]string{"app": "guarded"}, allowed: 0}},
		class:      "system-node-critical",
		containers: []corev1.Container{ctr("a", rl("cpu", "500m"), nil)},
		want:       map[string]string{"full": "Preempts"},
	}, {
		// When every candidate is protected, the scheduler violates the
		// budget rather than leave the pod Pending.
		name:    "pdb-violated",
		nodes:   []jNode{{"full", rl("cpu", "1", "memory", "2Gi", "pods", "10")}},
		classes: []schedulingv1.PriorityClass{class("batch", 10)},
		pods: []jPod{
			{name: "g1", node: "full", class: "batch", req: rl("cpu", "500m"), labels: map[string]string{"app": "guarded"}, startedAt: 1},
			{name: "g2", node: "full", class: "batch", req: rl("cpu", "500m"), labels: map[string]string{"app": "guarded"}, startedAt: 2},
		},
		pdbs:       []jPDB{{name: "guard", match: map[string]string{"app": "guarded"}, allowed: 0}},
		class:      "system-node-critical",
		containers: []corev1.Container{ctr("a", rl("cpu", "900m"), nil)},
		want:       map[string]string{"full": "Preempts"},
	}, {
		// preemptionPolicy Never waits, whatever its priority.
		name:       "preemption-never",
		nodes:      []jNode{{"full", rl("cpu", "1", "memory", "2Gi", "pods", "10")}},
		classes:    []schedulingv1.PriorityClass{never},
		pods:       []jPod{{name: "w1", node: "full", req: rl("cpu", "800m")}},
		class:      "urgent-polite",
		containers: []corev1.Container{ctr("a", rl("cpu", "500m"), nil)},
		want:       map[string]string{"full": "Pending"},
	}, {
		// Larger than the node: no preemption can help; and a full pod
		// count, which preemption can free.
		name:    "larger-than-node-and-pod-count",
		nodes:   []jNode{{"tiny", rl("cpu", "500m", "memory", "2Gi", "pods", "10")}, {"crowded", rl("cpu", "4", "memory", "2Gi", "pods", "2")}},
		classes: []schedulingv1.PriorityClass{class("batch", 10)},
		pods: []jPod{
			{name: "c1", node: "crowded", class: "batch", startedAt: 1},
			{name: "c2", node: "crowded", class: "batch", startedAt: 2},
			{name: "t1", node: "tiny", class: "batch", startedAt: 1},
		},
		class:      "system-node-critical",
		containers: []corev1.Container{ctr("a", rl("cpu", "600m"), nil)},
		want:       map[string]string{"tiny": "Pending", "crowded": "Preempts"},
	}}
}

// genCase generates a cluster: one to three nodes of a few sizes, some
// with an extended resource; PriorityClasses (one that never preempts);
// perhaps a LimitRange with default limits and/or default requests and a
// RuntimeClass with overhead; workload pods of mixed priorities, some
// binding a host port or the extended resource, with distinct start
// times; PodDisruptionBudgets allowing 0 to 2 disruptions; and a
// DaemonSet whose containers request, only limit, or set nothing, with a
// class among none, the case's and system-node-critical.
func genCase(r *rand.Rand, name string) jCase {
	c := jCase{name: name}
	polite := class("polite", 50000)
	polite.PreemptionPolicy = ptr.To(corev1.PreemptNever)
	c.classes = []schedulingv1.PriorityClass{class("low", 10), class("mid", 1000), class("high", 100000), polite}
	classes := []string{"", "low", "mid", "high"}
	if r.IntN(2) == 0 {
		item := corev1.LimitRangeItem{Type: corev1.LimitTypeContainer}
		defaultCPU := 0
		if r.IntN(2) == 0 {
			defaultCPU = pick(r, 200, 500, 1000)
			item.Default = rl("cpu", fmt.Sprintf("%dm", defaultCPU), "memory", pick(r, "128Mi", "512Mi"))
		}
		if r.IntN(2) == 0 {
			// The API server refuses a default request above the default
			// limit.
			req := pick(r, 50, 100, 300)
			if defaultCPU > 0 {
				req = min(req, defaultCPU)
			}
			item.DefaultRequest = rl("cpu", fmt.Sprintf("%dm", req))
		}
		c.limits = []corev1.LimitRangeItem{item}
	}
	if r.IntN(3) == 0 {
		c.runtimes = []nodev1.RuntimeClass{{ObjectMeta: metav1.ObjectMeta{Name: "sandbox"}, Handler: "sandbox",
			Overhead: &nodev1.Overhead{PodFixed: rl("cpu", pick(r, "100m", "250m"), "memory", pick(r, "64Mi", "160Mi"))}}}
		if r.IntN(2) == 0 {
			c.runtime = "sandbox"
		}
	}
	start := 0
	for i := range 1 + r.IntN(3) {
		node := fmt.Sprintf("n%d", i)
		cpu := pick(r, 1000, 2000, 4000)
		mem := pick(r, 1024, 2048, 4096)
		pods := pick(r, 3, 5, 8, 110)
		widgets := pick(r, 0, 0, 1, 2)
		alloc := rl("cpu", fmt.Sprintf("%dm", cpu), "memory", fmt.Sprintf("%dMi", mem), "pods", fmt.Sprint(pods))
		if widgets > 0 {
			alloc[widget] = *resource.NewQuantity(int64(widgets), resource.DecimalSI)
		}
		c.nodes = append(c.nodes, jNode{node, alloc})
		usedCPU, usedMem, usedWidgets := 0, 0, 0
		for j := range r.IntN(min(pods, 5) + 1) {
			p := jPod{name: fmt.Sprintf("%s-w%d", node, j), node: node, class: pick(r, classes...),
				labels: map[string]string{"app": pick(r, "a", "b")}}
			start++
			p.startedAt = start
			wantCPU, wantMem := pick(r, 0, 100, 250, 500, 1000), pick(r, 0, 128, 512)
			if usedCPU+wantCPU > cpu || usedMem+wantMem > mem {
				continue
			}
			usedCPU, usedMem = usedCPU+wantCPU, usedMem+wantMem
			// Requests and limits both set: a LimitRange default changes
			// neither.
			p.req, p.lim = corev1.ResourceList{}, corev1.ResourceList{}
			if wantCPU > 0 {
				p.req["cpu"] = resource.MustParse(fmt.Sprintf("%dm", wantCPU))
				p.lim["cpu"] = p.req["cpu"]
			}
			if wantMem > 0 {
				p.req["memory"] = resource.MustParse(fmt.Sprintf("%dMi", wantMem))
				p.lim["memory"] = p.req["memory"]
			}
			if usedWidgets < widgets && r.IntN(2) == 0 {
				usedWidgets++
				p.req[widget], p.lim[widget] = resource.MustParse("1"), resource.MustParse("1")
			}
			if r.IntN(5) == 0 {
				p.hostPort = 9100
			}
			c.pods = append(c.pods, p)
		}
	}
	// Two workload pods on one node binding the same port would be
	// refused by a kubelet; keep the first.
	seen := map[string]bool{}
	for i := range c.pods {
		p := &c.pods[i]
		if p.hostPort != 0 {
			if seen[p.node] {
				p.hostPort = 0
			}
			seen[p.node] = true
		}
	}
	for i := range r.IntN(3) {
		c.pdbs = append(c.pdbs, jPDB{name: fmt.Sprintf("pdb-%d", i), match: map[string]string{"app": pick(r, "a", "b")}, allowed: int32(r.IntN(3))})
	}
	c.class = pick(r, "", "low", "mid", "high", "polite", "system-node-critical")
	for i := range 1 + r.IntN(2) {
		var req, lim corev1.ResourceList
		cpu := fmt.Sprintf("%dm", pick(r, 100, 300, 600, 1200))
		switch r.IntN(4) {
		case 0: // nothing: LimitRange defaults, if any
		case 1:
			req = rl("cpu", cpu, "memory", pick(r, "64Mi", "256Mi"))
		case 2: // limits only: requested at the limits
			lim = rl("cpu", cpu, "memory", pick(r, "64Mi", "256Mi"))
		case 3:
			req, lim = rl("cpu", cpu), rl("cpu", "2")
		}
		if r.IntN(4) == 0 {
			if req == nil {
				req = corev1.ResourceList{}
			}
			if lim == nil {
				lim = corev1.ResourceList{}
			}
			req[widget], lim[widget] = resource.MustParse("1"), resource.MustParse("1")
		}
		ct := ctr(fmt.Sprintf("c%d", i), req, lim)
		if i == 0 && r.IntN(4) == 0 {
			ct = withPort(ct, 9100)
		}
		c.containers = append(c.containers, ct)
	}
	return c
}
