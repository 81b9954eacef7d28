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
//     the plan's Nodes, which a plan need not list (Tracker.Plan
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
	c := newPlanCheck(in, p)
	c.checkSorted()
	c.checkPodOwners()
	c.checkPodWrites()
	c.checkCreates(opts.Placement)
	c.checkRevisions()
	c.checkStopped()
	return errors.Join(c.errs...)
}

// planCheck is what the rules of [CheckPlan] read: the input and the plan,
// the names the plan lists, the DaemonSet's selector, and the pods of its
// namespace. Each rule is one method, which appends its violations to errs;
// none depends on another having run.
type planCheck struct {
	in   Input
	p    Plan
	ds   *api.DaemonSet
	errs []error

	// The names of the plan's entries, in the plan's order.
	createNodes, deletes, relabels, revCreate, revUpdate []string

	sel    selector.Selector
	selErr error
	// pods are the input's pods of the DaemonSet's namespace by name.
	pods map[string]*api.Pod
	// canAdopt: the DaemonSet may adopt, having a UID and not being deleted.
	canAdopt bool
	// adopted are the pods the plan adopts, whether or not it may.
	adopted map[string]bool
}

func newPlanCheck(in Input, p Plan) *planCheck {
	ds := in.DaemonSet
	c := &planCheck{in: in, p: p, ds: ds}
	c.createNodes = make([]string, len(p.Create))
	for i, cr := range p.Create {
		c.createNodes[i] = cr.Node
	}
	c.deletes = make([]string, len(p.Delete))
	for i, d := range p.Delete {
		c.deletes[i] = d.Pod
	}
	c.relabels = make([]string, len(p.Relabel))
	for i, r := range p.Relabel {
		c.relabels[i] = r.Pod
	}
	c.revCreate, c.revUpdate = revisionNames(p.Revisions.Create), revisionNames(p.Revisions.Update)
	c.sel, c.selErr = selector.Compile(ds.Selector)
	c.pods = make(map[string]*api.Pod, len(in.Pods))
	for i := range in.Pods {
		if pod := &in.Pods[i]; pod.Namespace == ds.Namespace {
			c.pods[pod.Name] = pod
		}
	}
	c.canAdopt = ds.UID != "" && !ds.Deleting
	c.adopted = map[string]bool{}
	for _, name := range p.Adopt {
		c.adopted[name] = true
	}
	return c
}

// fail records a violation of the rule numbered rule.
func (c *planCheck) fail(rule int, format string, args ...any) {
	c.errs = append(c.errs, Violation{Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

// matches reports whether the DaemonSet's selector parses and matches labels.
func (c *planCheck) matches(labels map[string]string) bool {
	return c.selErr == nil && c.sel.Matches(labels)
}

// controls reports whether ref names the DaemonSet by a non-empty UID.
func (c *planCheck) controls(ref *api.OwnerRef) bool {
	return ref != nil && ref.UID != "" && ref.UID == c.ds.UID
}

// releasable: the DaemonSet controls it and its selector, which parses, no
// longer matches it.
func (c *planCheck) releasable(ref *api.OwnerRef, labels map[string]string) bool {
	return c.controls(ref) && c.selErr == nil && !c.sel.Matches(labels)
}

// checkSorted is rule 1 of [CheckPlan]: every list of the plan is sorted,
// without repeats (Nodes, Create by node; Adopt, Release, Delete, Keep,
// Relabel by pod; every revision list by name).
func (c *planCheck) checkSorted() {
	sorted := func(what string, names []string) {
		for i := 1; i < len(names); i++ {
			if names[i-1] >= names[i] {
				c.fail(1, "%s is not sorted without repeats: %q before %q", what, names[i-1], names[i])
				return
			}
		}
	}
	p, rv := c.p, c.p.Revisions
	nodeNames := make([]string, len(p.Nodes))
	for i, n := range p.Nodes {
		nodeNames[i] = n.Node
	}
	sorted("Nodes", nodeNames)
	sorted("Create", c.createNodes)
	sorted("Delete", c.deletes)
	sorted("Relabel", c.relabels)
	sorted("Adopt", p.Adopt)
	sorted("Release", p.Release)
	sorted("Keep", p.Keep)
	sorted("Revisions.Create", c.revCreate)
	sorted("Revisions.Update", c.revUpdate)
	sorted("Revisions.DeleteDuplicates", rv.DeleteDuplicates)
	sorted("Revisions.Delete", rv.Delete)
	sorted("Revisions.Adopt", rv.Adopt)
	sorted("Revisions.Release", rv.Release)
}

// checkPodOwners is rule 2 of [CheckPlan]: Adopt names orphan pods of the
// DaemonSet's namespace that the selector matches and that are not being
// deleted, and only when the DaemonSet has a UID and is not being deleted;
// Release names pods the DaemonSet controls and its selector no longer
// matches; the two are disjoint.
func (c *planCheck) checkPodOwners() {
	for _, name := range c.p.Adopt {
		pod := c.pods[name]
		switch {
		case pod == nil:
			c.fail(2, "adopts pod %s, which is not in the DaemonSet's namespace", name)
		case !c.canAdopt:
			c.fail(2, "adopts pod %s for a DaemonSet that has no UID or is being deleted", name)
		case pod.Controller != nil:
			c.fail(2, "adopts pod %s, which has a controller (%s %s)", name, pod.Controller.Kind, pod.Controller.Name)
		case pod.Deleting:
			c.fail(2, "adopts pod %s, which is being deleted", name)
		case !c.matches(pod.Labels):
			c.fail(2, "adopts pod %s, which the selector does not match", name)
		}
	}
	for _, name := range c.p.Release {
		if pod := c.pods[name]; pod == nil || !c.releasable(pod.Controller, pod.Labels) {
			c.fail(2, "releases pod %s, which the DaemonSet does not control or still selects", name)
		}
		if c.adopted[name] {
			c.fail(2, "adopts and releases pod %s", name)
		}
	}
}

// checkPodWrites is rule 3 of [CheckPlan]: Delete and Relabel name pods the
// DaemonSet claims (it controls them by a non-empty UID and its selector
// matches them, or the plan adopts them); Delete and Keep are disjoint.
func (c *planCheck) checkPodWrites() {
	claimed := func(name string) bool {
		pod := c.pods[name]
		return pod != nil && (c.controls(pod.Controller) && c.matches(pod.Labels) || c.adopted[name])
	}
	deleted := make(map[string]bool, len(c.deletes))
	for _, name := range c.deletes {
		if !claimed(name) {
			c.fail(3, "deletes pod %s, which the DaemonSet does not claim", name)
		}
		deleted[name] = true
	}
	for _, name := range c.relabels {
		if !claimed(name) {
			c.fail(3, "relabels pod %s, which the DaemonSet does not claim", name)
		}
	}
	for _, name := range c.p.Keep {
		if deleted[name] {
			c.fail(3, "keeps and deletes pod %s", name)
		}
	}
}

// checkCreates is rule 4 of [CheckPlan]: Create names nodes of the input
// that should run the pod, at most once each, decided again from the
// input's defaulted DaemonSet and nodes with opts (the zero options for
// CheckPlan, the sync's for CheckPlanWith), never from the plan's Nodes.
func (c *planCheck) checkCreates(opts placement.Options) {
	// Decided from the input, as Sync decides: the defaulted DaemonSet's
	// eligibility on each node. A name listed twice (which Sync refuses)
	// should run the pod only if every entry should.
	var shouldRun map[string]bool
	if len(c.createNodes) > 0 {
		dds := api.Default(c.ds)
		elig := placement.NewEligibility(&dds, opts)
		shouldRun = make(map[string]bool, len(c.in.Nodes))
		for i := range c.in.Nodes {
			n := &c.in.Nodes[i]
			run := elig.Decide(n).ShouldRun
			if before, seen := shouldRun[n.Name]; seen {
				run = run && before
			}
			shouldRun[n.Name] = run
		}
	}
	for _, node := range c.createNodes {
		if run, ok := shouldRun[node]; !ok {
			c.fail(4, "creates a pod on node %s, which is not in the input", node)
		} else if !run {
			c.fail(4, "creates a pod on node %s, which should not run it", node)
		}
	}
}

// checkRevisions is rule 5 of [CheckPlan]: revisions are claimed by the same
// rules as pods (docs/history.md, H6). Adopt names orphans of the namespace
// that the selector matches and that are not being deleted, under the same
// conditions as pods; Release names revisions the DaemonSet controls and the
// selector no longer matches; Update, DeleteDuplicates and Delete name
// revisions the DaemonSet claims; Create names no existing revision of the
// namespace.
func (c *planCheck) checkRevisions() {
	rv := c.p.Revisions
	revs := map[string]*revision.Revision{}
	for i := range c.in.Revisions {
		if r := &c.in.Revisions[i]; r.Namespace == c.ds.Namespace {
			revs[r.Name] = r
		}
	}
	revAdopted := map[string]bool{}
	for _, name := range rv.Adopt {
		r, ok := revs[name]
		switch {
		case !ok:
			c.fail(5, "adopts revision %s, which is not in the DaemonSet's namespace", name)
		case !c.canAdopt:
			c.fail(5, "adopts revision %s for a DaemonSet that has no UID or is being deleted", name)
		case r.Controller != nil:
			c.fail(5, "adopts revision %s, which has a controller", name)
		case r.Deleting:
			c.fail(5, "adopts revision %s, which is being deleted", name)
		case !c.matches(r.Labels):
			c.fail(5, "adopts revision %s, which the selector does not match", name)
		}
		revAdopted[name] = true
	}
	for _, name := range rv.Release {
		if r, ok := revs[name]; !ok || !c.releasable(r.Controller, r.Labels) {
			c.fail(5, "releases revision %s, which the DaemonSet does not control or still selects", name)
		}
		if revAdopted[name] {
			c.fail(5, "adopts and releases revision %s", name)
		}
	}
	revClaimed := func(name string) bool {
		r, ok := revs[name]
		return ok && (c.controls(r.Controller) && c.matches(r.Labels) || revAdopted[name])
	}
	for _, l := range []struct {
		what  string
		names []string
	}{{"updates", c.revUpdate}, {"deletes", rv.Delete}, {"deletes as a duplicate", rv.DeleteDuplicates}} {
		for _, name := range l.names {
			if !revClaimed(name) {
				c.fail(5, "%s revision %s, which the DaemonSet does not claim", l.what, name)
			}
		}
	}
	for _, name := range c.revCreate {
		if _, ok := revs[name]; ok {
			c.fail(5, "creates revision %s, which exists", name)
		}
	}
}

// checkStopped is rule 6 of [CheckPlan]: a plan whose revision history
// failed (Errors not empty and Hash empty) creates and deletes nothing and
// relabels no pod; a plan for a DaemonSet being deleted, or whose selector
// selects everything, writes nothing but possibly the status.
func (c *planCheck) checkStopped() {
	p, rv := c.p, c.p.Revisions
	writes := len(p.Create) + len(p.Delete) + len(p.Relabel) + len(rv.Create) + len(rv.DeleteDuplicates) + len(rv.Delete)
	if len(p.Errors) > 0 && p.Hash == "" && writes > 0 {
		c.fail(6, "revision history failed (%v) but the plan still creates, deletes or relabels", errors.Join(p.Errors...))
	}
	if c.ds.Deleting || syncrule.SelectsAll(c.ds.Selector) {
		if writes+len(p.Adopt)+len(p.Release)+len(rv.Adopt)+len(rv.Release)+len(rv.Update) > 0 {
			c.fail(6, "a DaemonSet being deleted or selecting everything gets writes")
		}
	}
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
