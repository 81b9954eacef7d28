// Package reference is the module's independent oracle: a deliberately
// naive planner for one DaemonSet sync, a straight transcription of
// upstream's NodeShouldRunDaemonPod, GetTargetNodeName,
// getNodesToDaemonPods, ClaimObject, manage, podsShouldBeOnNode (with its
// failed-pod backoff), getUnscheduledPodsWithoutNode and
// updateDaemonSetStatus (docs/eligibility.md, docs/manage.md,
// docs/status.md) with plain maps and no precompilation. It exists to be
// compared with the real planner, package placement and
// [github.com/daemonplan/daemonplan.Sync] (differential property tests, fuzz
// targets and benchmarks), never to be used by it.
//
// It shares with placement only the snapshot types and the leaf helpers
// ([selector.Compile], [selector.CompileNode], [taints.Tolerates],
// [taints.MergeDaemonDefaults]). Everything else (claiming, target nodes,
// pod order, availability, backoff, the manage cases and the status
// counters) is written again here, in the plainest form. It has no burst
// limit: callers keep their clusters under [placement.DefaultBurstReplicas].
//
// The package also holds the invariants of one manage plan ([CheckPlan],
// which checks a [placement.ManagePlan] against a [Snapshot], with [CheckDeletes],
// [CheckOnePodPerNode] and [CheckStatus]) and a small [Apply] that plays a plan
// onto a snapshot. These are the oracle's own recounts, not the safeguard
// callers run: [github.com/daemonplan/daemonplan.CheckPlan] checks a whole
// [github.com/daemonplan/daemonplan.Plan], and package plantest builds its
// checkers on daemonplan.CheckPlan and, for what only a recount of upstream's
// rules can judge (pods per node, budgets, status), on this package's naive
// functions. To stay independent, this package never calls daemonplan.CheckPlan
// or Sync: it imports only the standard library and the module's lower packages
// (api, selector, taints, placement for its types, revision), never the root
// package.
package reference

import (
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
)

// Result is what the reference decides for one sync.
type Result struct {
	// Creates are the names of nodes that get a pod, sorted.
	Creates []string
	// Deletes are the names of pods to delete, sorted.
	Deletes []string
	// Adopt and Release are the names of pods whose controller reference
	// changes, sorted.
	Adopt, Release []string
	Status         api.Status
	// Decisions maps every node name to {shouldRun, shouldContinueRunning}.
	Decisions map[string][2]bool
	// Backoff is the failed-pod backoff state after the sync.
	Backoff placement.Backoff
}

// ShouldRun is NodeShouldRunDaemonPod (docs/eligibility.md, E1), evaluated from scratch.
func ShouldRun(ds *api.DaemonSet, node *api.Node) (shouldRun, shouldContinueRunning bool) {
	if ds.Template.NodeName != "" && ds.Template.NodeName != node.Name {
		return false, false
	}
	matcher := selector.CompileNode(ds.Template.NodeSelector, ds.Template.RequiredNodeAffinity)
	if ok, _ := matcher.Match(node.Name, node.Labels); !ok {
		return false, false
	}
	tols := taints.MergeDaemonDefaults(ds.Template.Tolerations, ds.Template.HostNetwork)
	untoleratedSchedule, untoleratedExecute := false, false
	for _, taint := range node.Taints {
		if taint.Effect != api.TaintEffectNoSchedule && taint.Effect != api.TaintEffectNoExecute {
			continue
		}
		tolerated := false
		for _, tol := range tols {
			if taints.Tolerates(tol, taint, taints.Options{}) {
				tolerated = true
			}
		}
		if !tolerated {
			untoleratedSchedule = true
			if taint.Effect == api.TaintEffectNoExecute {
				untoleratedExecute = true
			}
		}
	}
	if untoleratedSchedule {
		return false, !untoleratedExecute
	}
	return true, true
}

// TargetNode is GetTargetNodeName (docs/eligibility.md, E12); ok is false when the pod
// names no node.
func TargetNode(p *api.Pod) (string, bool) {
	if p.NodeName != "" {
		return p.NodeName, true
	}
	if p.RequiredNodeAffinity == nil || len(p.RequiredNodeAffinity.Terms) == 0 {
		return "", false
	}
	for _, term := range p.RequiredNodeAffinity.Terms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == api.SelectorOpIn {
				if len(f.Values) != 1 {
					return "", false
				}
				return f.Values[0], true
			}
		}
	}
	return "", false
}

// Claims reports whether the DaemonSet claims the pod (docs/manage.md, M3), and
// whether claiming it means adopting or releasing it.
func Claims(ds *api.DaemonSet, p *api.Pod) (claimed, adopt, release bool) {
	if p.Namespace != ds.Namespace {
		return false, false, false
	}
	sel, err := selector.Compile(ds.Selector)
	if err != nil {
		return false, false, false
	}
	matches := sel.Matches(p.Labels)
	if p.Controller != nil {
		if p.Controller.UID == "" || p.Controller.UID != ds.UID {
			return false, false, false
		}
		if matches {
			return true, false, false
		}
		return false, false, !ds.Deleting
	}
	if ds.UID == "" || ds.Deleting || !matches || p.Deleting {
		return false, false, false
	}
	return true, true, false
}

// Older is podByCreationTimestampAndPhase's Less (docs/manage.md, M5).
func Older(a, b *api.Pod) bool {
	if a.NodeName != "" && b.NodeName == "" {
		return true
	}
	if a.NodeName == "" && b.NodeName != "" {
		return false
	}
	if a.Created.Equal(b.Created) {
		return a.Name < b.Name
	}
	return a.Created.Before(b.Created)
}

// Buckets is getNodesToDaemonPods(false) (docs/manage.md, M5): claimed pods with a
// target node, minus those both terminal and being deleted, by target
// node, each bucket sorted oldest first.
func Buckets(ds *api.DaemonSet, pods []api.Pod) map[string][]*api.Pod {
	buckets := map[string][]*api.Pod{}
	for i := range pods {
		p := &pods[i]
		if claimed, _, _ := Claims(ds, p); !claimed {
			continue
		}
		terminal := p.Phase == api.PodFailed || p.Phase == api.PodSucceeded
		if terminal && p.Deleting {
			continue
		}
		node, ok := TargetNode(p)
		if !ok {
			continue
		}
		buckets[node] = append(buckets[node], p)
	}
	for _, b := range buckets {
		sort.Slice(b, func(i, j int) bool { return Older(b[i], b[j]) })
	}
	return buckets
}

// Ready is IsPodReady.
func Ready(p *api.Pod) bool { return p.Ready }

// Available is IsPodAvailable as of v1.34 (docs/rolling-update.md, R5).
func Available(p *api.Pod, minReadySeconds int32, now time.Time) bool {
	if !p.Ready {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	if p.ReadySince.IsZero() {
		return false
	}
	return !now.Before(p.ReadySince.Add(time.Duration(minReadySeconds) * time.Second))
}

// Generation is GetTemplateGeneration; nil when missing or unparsable.
func Generation(ds *api.DaemonSet) *int64 {
	s, ok := ds.Annotations["deprecated.daemonset.template.generation"]
	if !ok {
		return nil
	}
	g, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil
	}
	return &g
}

// Updated is IsPodUpdated (docs/rolling-update.md, R2).
func Updated(p *api.Pod, hash string, gen *int64) bool {
	if hash != "" && p.Labels["controller-revision-hash"] == hash {
		return true
	}
	if gen != nil {
		if v, ok := p.Labels["pod-template-generation"]; ok && v == strconv.FormatInt(*gen, 10) {
			return true
		}
	}
	return false
}

// Surge is util.AllowsSurge: RollingUpdate with a maxSurge that scales to a
// positive number against one node.
func Surge(ds *api.DaemonSet) bool {
	ru := ds.UpdateStrategy.RollingUpdate
	if ds.UpdateStrategy.Type != api.RollingUpdate || ru == nil || ru.MaxSurge == nil {
		return false
	}
	v := ru.MaxSurge
	if !v.IsString {
		return v.IntVal > 0
	}
	if len(v.StrVal) == 0 || v.StrVal[len(v.StrVal)-1] != '%' {
		return false
	}
	n, err := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	if err != nil {
		return false
	}
	// ceil(n × 1 / 100) is non-zero iff n is positive.
	return n > 0
}

// inBackoff and nextBackoff are client-go's flowcontrol.Backoff with 1 s
// initial and 15 min maximum delay, as
// kube-controller-manager wires them (docs/manage.md, M10).
func inBackoff(b placement.Backoff, key placement.BackoffKey, now time.Time) bool {
	e, ok := b[key]
	if !ok {
		return false
	}
	if now.Sub(e.LastUpdate) > 2*15*time.Minute {
		return false
	}
	return now.Sub(e.LastUpdate) < e.Delay
}

func nextBackoff(b placement.Backoff, key placement.BackoffKey, now time.Time) {
	e, ok := b[key]
	if !ok || now.Sub(e.LastUpdate) > 2*15*time.Minute {
		b[key] = placement.BackoffEntry{Delay: time.Second, LastUpdate: now}
		return
	}
	d := 2 * e.Delay
	if d > 15*time.Minute {
		d = 15 * time.Minute
	}
	b[key] = placement.BackoffEntry{Delay: d, LastUpdate: now}
}

// Manage runs one sync's manage and status (docs/manage.md, M3–M12;
// docs/status.md, S1–S6) on the
// snapshot. backoff is not changed; the result holds the next state,
// without the entries that expired. It changes none of its inputs.
func Manage(ds *api.DaemonSet, nodes []api.Node, pods []api.Pod, now time.Time, hash string, backoff placement.Backoff) Result {
	res := Result{Decisions: map[string][2]bool{}, Backoff: placement.Backoff{}}
	for k, v := range backoff {
		res.Backoff[k] = v
	}
	for i := range pods {
		_, adopt, release := Claims(ds, &pods[i])
		if adopt {
			res.Adopt = append(res.Adopt, pods[i].Name)
		}
		if release {
			res.Release = append(res.Release, pods[i].Name)
		}
	}

	sorted := make([]*api.Node, len(nodes))
	for i := range nodes {
		sorted[i] = &nodes[i]
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })

	buckets := Buckets(ds, pods)
	surge := Surge(ds)
	for _, node := range sorted {
		shouldRun, shouldContinueRunning := ShouldRun(ds, node)
		res.Decisions[node.Name] = [2]bool{shouldRun, shouldContinueRunning}
		nodePods, exists := buckets[node.Name]
		if shouldRun && !exists {
			res.Creates = append(res.Creates, node.Name)
			continue
		}
		if shouldContinueRunning {
			// Upstream's claim returns the pods the DaemonSet controlled
			// before the orphans it adopts, each group in informer order
			// (here oldest first): the order in which it meets failed pods.
			met := slices.Clone(nodePods)
			sort.SliceStable(met, func(i, j int) bool { return met[i].Controller != nil && met[j].Controller == nil })
			var running []*api.Pod
			for _, p := range met {
				if p.Deleting {
					continue
				}
				switch p.Phase {
				case api.PodFailed:
					key := placement.BackoffKey{DaemonSetUID: ds.UID, ObservedGeneration: ds.Status.ObservedGeneration, Node: node.Name}
					if inBackoff(res.Backoff, key, now) {
						continue
					}
					nextBackoff(res.Backoff, key, now)
					res.Deletes = append(res.Deletes, p.Name)
				case api.PodSucceeded:
					res.Deletes = append(res.Deletes, p.Name)
				default:
					running = append(running, p)
				}
			}
			if !surge {
				if len(running) > 1 {
					sort.Slice(running, func(i, j int) bool { return Older(running[i], running[j]) })
					for _, p := range running[1:] {
						res.Deletes = append(res.Deletes, p.Name)
					}
				}
				continue
			}
			if len(running) <= 1 {
				if len(running) == 0 && shouldRun {
					res.Creates = append(res.Creates, node.Name)
				}
				continue
			}
			sort.Slice(running, func(i, j int) bool { return Older(running[i], running[j]) })
			var oldestNew, oldestOld *api.Pod
			for _, p := range running {
				if p.Labels["controller-revision-hash"] == hash {
					if oldestNew == nil {
						oldestNew = p
						continue
					}
				} else if oldestOld == nil {
					oldestOld = p
					continue
				}
				res.Deletes = append(res.Deletes, p.Name)
			}
			if oldestNew != nil && oldestOld != nil {
				if !Ready(oldestOld) || Available(oldestNew, ds.MinReadySeconds, now) {
					res.Deletes = append(res.Deletes, oldestOld.Name)
				}
			}
			continue
		}
		if exists {
			for _, p := range nodePods {
				if !p.Deleting {
					res.Deletes = append(res.Deletes, p.Name)
				}
			}
		}
	}

	// getUnscheduledPodsWithoutNode.
	present := map[string]bool{}
	for i := range nodes {
		present[nodes[i].Name] = true
	}
	for node, ps := range buckets {
		if present[node] {
			continue
		}
		for _, p := range ps {
			if p.NodeName == "" {
				res.Deletes = append(res.Deletes, p.Name)
			}
		}
	}
	for k, e := range res.Backoff {
		if now.Sub(e.LastUpdate) > 2*15*time.Minute {
			delete(res.Backoff, k)
		}
	}
	sort.Strings(res.Creates)
	sort.Strings(res.Deletes)
	sort.Strings(res.Adopt)
	sort.Strings(res.Release)
	res.Status = Status(ds, nodes, pods, now, hash)
	return res
}

// Status is updateDaemonSetStatus's counting (docs/status.md), with
// ObservedGeneration set to the DaemonSet's generation and CollisionCount
// copied.
func Status(ds *api.DaemonSet, nodes []api.Node, pods []api.Pod, now time.Time, hash string) api.Status {
	buckets := Buckets(ds, pods)
	gen := Generation(ds)
	var s api.Status
	for i := range nodes {
		node := &nodes[i]
		shouldRun, _ := ShouldRun(ds, node)
		nodePods := buckets[node.Name]
		if !shouldRun {
			if len(nodePods) > 0 {
				s.NumberMisscheduled++
			}
			continue
		}
		s.DesiredNumberScheduled++
		if len(nodePods) == 0 {
			continue
		}
		s.CurrentNumberScheduled++
		oldest := nodePods[0]
		if Ready(oldest) {
			s.NumberReady++
			if Available(oldest, ds.MinReadySeconds, now) {
				s.NumberAvailable++
			}
		}
		if Updated(oldest, hash, gen) {
			s.UpdatedNumberScheduled++
		}
	}
	s.NumberUnavailable = s.DesiredNumberScheduled - s.NumberAvailable
	s.ObservedGeneration = ds.Generation
	if ds.Status.CollisionCount != nil {
		c := *ds.Status.CollisionCount
		s.CollisionCount = &c
	}
	return s
}
