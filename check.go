package daemonplan

import (
	"errors"
	"fmt"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/syncrule"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/selector"
)

// CheckPlan checks that p, a plan [Sync] returned for in, harms nothing, and
// returns every violation joined (errors.Join), each a [Violation] naming its
// rule, or nil. It recounts ownership from in rather than trusting the
// planner, so that a caller may run it as a last safeguard before applying
// a plan; tests and fuzz targets run it on every plan, and the test kit
// plantest builds its checkers on it. The rules:
//
//  1. Every list of p is sorted, without repeats: Nodes, Create by node;
//     Adopt, Release, Delete, Keep, Relabel by pod; every revision list by
//     name.
//  2. Adopt names orphan pods of the DaemonSet's namespace that the selector
//     matches and that are not being deleted, and only when the DaemonSet
//     has a UID and is not being deleted. Release names pods the DaemonSet
//     controls and its selector no longer matches. They are disjoint.
//  3. Delete and Relabel name pods the DaemonSet claims: it controls them
//     (by a non-empty UID) and its selector matches them, or p adopts
//     them. Delete and Keep are disjoint.
//  4. Create names nodes of the input that should run the pod, at most once
//     each. Eligibility is decided again from the input's DaemonSet
//     (defaulted) and nodes (docs/eligibility.md), with the zero Options:
//     the plan's Nodes, which a plan need not list (replan's Tracker.Plan
//     does not), play no part. CheckPlanWith decides with the Options of
//     the sync: a plan made with Placement.Taints.ComparisonOperators may
//     create where only a Lt or Gt toleration tolerates a taint, which
//     CheckPlan refuses.
//  5. Revisions, claimed by the same rules as pods (docs/history.md, H6):
//     Adopt names orphans of the namespace that the selector matches and
//     that are not being deleted (under the same conditions as pods);
//     Release names revisions the DaemonSet controls and the selector no
//     longer matches; Update, DeleteDuplicates and Delete name revisions
//     the DaemonSet claims; Create names no existing revision of the
//     namespace.
//  6. A plan whose revision history failed (Errors not empty and Hash
//     empty) creates and deletes nothing and relabels no pod; a plan for a
//     DaemonSet being deleted, or whose selector selects everything, writes
//     nothing but possibly the status.
//
// CheckPlan reads in and p and changes neither. It is CheckPlanWith with
// the zero Options.
func CheckPlan(in Input, p Plan) error { return CheckPlanWith(in, p, Options{}) }

// CheckPlanWith is CheckPlan for a plan Sync returned for in with opts: of
// opts it reads only Placement, which decides which nodes should run the
// pod (rule 4).
func CheckPlanWith(in Input, p Plan, opts Options) error {
	if in.DaemonSet == nil {
		return ErrNilDaemonSet
	}
	ds := in.DaemonSet
	var errs []error
	rule := 0
	fail := func(format string, args ...any) {
		errs = append(errs, Violation{Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}

	// 1.
	rule = 1
	sorted := func(what string, names []string) {
		for i := 1; i < len(names); i++ {
			if names[i-1] >= names[i] {
				fail("%s is not sorted without repeats: %q before %q", what, names[i-1], names[i])
				return
			}
		}
	}
	nodeNames := make([]string, len(p.Nodes))
	for i, n := range p.Nodes {
		nodeNames[i] = n.Node
	}
	sorted("Nodes", nodeNames)
	createNodes := make([]string, len(p.Create))
	for i, c := range p.Create {
		createNodes[i] = c.Node
	}
	sorted("Create", createNodes)
	deletes := make([]string, len(p.Delete))
	for i, d := range p.Delete {
		deletes[i] = d.Pod
	}
	sorted("Delete", deletes)
	relabels := make([]string, len(p.Relabel))
	for i, r := range p.Relabel {
		relabels[i] = r.Pod
	}
	sorted("Relabel", relabels)
	sorted("Adopt", p.Adopt)
	sorted("Release", p.Release)
	sorted("Keep", p.Keep)
	rv := p.Revisions
	revCreate, revUpdate := revisionNames(rv.Create), revisionNames(rv.Update)
	sorted("Revisions.Create", revCreate)
	sorted("Revisions.Update", revUpdate)
	sorted("Revisions.DeleteDuplicates", rv.DeleteDuplicates)
	sorted("Revisions.Delete", rv.Delete)
	sorted("Revisions.Adopt", rv.Adopt)
	sorted("Revisions.Release", rv.Release)

	// 2.
	rule = 2
	sel, selErr := selector.Compile(ds.Selector)
	matches := func(labels map[string]string) bool { return selErr == nil && sel.Matches(labels) }
	pods := make(map[string]*api.Pod, len(in.Pods))
	for i := range in.Pods {
		if pod := &in.Pods[i]; pod.Namespace == ds.Namespace {
			pods[pod.Name] = pod
		}
	}
	controls := func(ref *api.OwnerRef) bool { return ref != nil && ref.UID != "" && ref.UID == ds.UID }
	canAdopt := ds.UID != "" && !ds.Deleting
	adopted := map[string]bool{}
	for _, name := range p.Adopt {
		pod := pods[name]
		switch {
		case pod == nil:
			fail("adopts pod %s, which is not in the DaemonSet's namespace", name)
		case !canAdopt:
			fail("adopts pod %s for a DaemonSet that has no UID or is being deleted", name)
		case pod.Controller != nil:
			fail("adopts pod %s, which has a controller (%s %s)", name, pod.Controller.Kind, pod.Controller.Name)
		case pod.Deleting:
			fail("adopts pod %s, which is being deleted", name)
		case !matches(pod.Labels):
			fail("adopts pod %s, which the selector does not match", name)
		}
		adopted[name] = true
	}
	// releasable: the DaemonSet controls it and its selector, which
	// parses, no longer matches it.
	releasable := func(ref *api.OwnerRef, labels map[string]string) bool {
		return controls(ref) && selErr == nil && !sel.Matches(labels)
	}
	for _, name := range p.Release {
		if pod := pods[name]; pod == nil || !releasable(pod.Controller, pod.Labels) {
			fail("releases pod %s, which the DaemonSet does not control or still selects", name)
		}
		if adopted[name] {
			fail("adopts and releases pod %s", name)
		}
	}

	// 3.
	rule = 3
	claimed := func(name string) bool {
		pod := pods[name]
		return pod != nil && (controls(pod.Controller) && matches(pod.Labels) || adopted[name])
	}
	deleted := make(map[string]bool, len(deletes))
	for _, name := range deletes {
		if !claimed(name) {
			fail("deletes pod %s, which the DaemonSet does not claim", name)
		}
		deleted[name] = true
	}
	for _, name := range relabels {
		if !claimed(name) {
			fail("relabels pod %s, which the DaemonSet does not claim", name)
		}
	}
	for _, name := range p.Keep {
		if deleted[name] {
			fail("keeps and deletes pod %s", name)
		}
	}

	// 4.
	rule = 4
	// Decided from the input, as Sync decides: the defaulted DaemonSet's
	// eligibility on each node. A name listed twice (which Sync refuses)
	// should run the pod only if every entry should.
	var shouldRun map[string]bool
	if len(createNodes) > 0 {
		dds := api.Default(ds)
		elig := placement.NewEligibility(&dds, opts.Placement)
		shouldRun = make(map[string]bool, len(in.Nodes))
		for i := range in.Nodes {
			n := &in.Nodes[i]
			run := elig.Decide(n).ShouldRun
			if before, seen := shouldRun[n.Name]; seen {
				run = run && before
			}
			shouldRun[n.Name] = run
		}
	}
	for _, node := range createNodes {
		if run, ok := shouldRun[node]; !ok {
			fail("creates a pod on node %s, which is not in the input", node)
		} else if !run {
			fail("creates a pod on node %s, which should not run it", node)
		}
	}

	// 5.
	rule = 5
	revs := map[string]*revision.Revision{}
	for i := range in.Revisions {
		if r := &in.Revisions[i]; r.Namespace == ds.Namespace {
			revs[r.Name] = r
		}
	}
	revAdopted := map[string]bool{}
	for _, name := range rv.Adopt {
		r, ok := revs[name]
		switch {
		case !ok:
			fail("adopts revision %s, which is not in the DaemonSet's namespace", name)
		case !canAdopt:
			fail("adopts revision %s for a DaemonSet that has no UID or is being deleted", name)
		case r.Controller != nil:
			fail("adopts revision %s, which has a controller", name)
		case r.Deleting:
			fail("adopts revision %s, which is being deleted", name)
		case !matches(r.Labels):
			fail("adopts revision %s, which the selector does not match", name)
		}
		revAdopted[name] = true
	}
	for _, name := range rv.Release {
		if r, ok := revs[name]; !ok || !releasable(r.Controller, r.Labels) {
			fail("releases revision %s, which the DaemonSet does not control or still selects", name)
		}
		if revAdopted[name] {
			fail("adopts and releases revision %s", name)
		}
	}
	revClaimed := func(name string) bool {
		r, ok := revs[name]
		return ok && (controls(r.Controller) && matches(r.Labels) || revAdopted[name])
	}
	for _, l := range []struct {
		what  string
		names []string
	}{{"updates", revUpdate}, {"deletes", rv.Delete}, {"deletes as a duplicate", rv.DeleteDuplicates}} {
		for _, name := range l.names {
			if !revClaimed(name) {
				fail("%s revision %s, which the DaemonSet does not claim", l.what, name)
			}
		}
	}
	for _, name := range revCreate {
		if _, ok := revs[name]; ok {
			fail("creates revision %s, which exists", name)
		}
	}

	// 6.
	rule = 6
	writes := len(p.Create) + len(p.Delete) + len(p.Relabel) + len(rv.Create) + len(rv.DeleteDuplicates) + len(rv.Delete)
	if len(p.Errors) > 0 && p.Hash == "" && writes > 0 {
		fail("revision history failed (%v) but the plan still creates, deletes or relabels", errors.Join(p.Errors...))
	}
	if ds.Deleting || syncrule.SelectsAll(ds.Selector) {
		if writes+len(p.Adopt)+len(p.Release)+len(rv.Adopt)+len(rv.Release)+len(rv.Update) > 0 {
			fail("a DaemonSet being deleted or selecting everything gets writes")
		}
	}
	return errors.Join(errs...)
}

// Violation is one rule of [CheckPlan] that a plan breaks: Rule is the
// rule's number in CheckPlan's list (1 to 6), Detail what it saw. Its
// Error is Detail.
type Violation struct {
	Rule   int
	Detail string
}

func (v Violation) Error() string { return v.Detail }

func revisionNames(rs []revision.Revision) []string {
	out := make([]string, len(rs))
	for i := range rs {
		out[i] = rs[i].Name
	}
	return out
}
