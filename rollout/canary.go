package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
)

// canary decides the canary's phase and picks its nodes; inSet marks them
// by index in ns.
//
// Every present, desired node that no longer holds an outdated pod is a
// canary: the rollout has committed it (or manage gave it the current
// revision), whatever its labels. Then outdated nodes within Scope that
// match the canary selector join, by name, while fewer than Want nodes
// are canaries and their spread value has fewer than ceil(Want / values)
// canaries, values being counted over the candidates and the committed
// nodes.
func (p Progressive) canary(ns []pnode, desired int, hash string, now time.Time, avail func(*api.Pod) bool, sel compiled) (*CanaryProgress, []bool) {
	c := p.Canary
	want, _ := scaleCount(c.Nodes, desired, true)
	cp := &CanaryProgress{Want: want}
	if c.Verdicts[hash] == Promote {
		cp.Phase = PhasePromoted
		return cp, nil
	}

	inSet := make([]bool, len(ns))
	values := map[string]int{} // canaries per spread value
	picked := 0
	for i := range ns {
		n := &ns[i]
		switch {
		case !n.Present || !n.Desired:
		case !n.Outdated():
			inSet[i] = true
			picked++
			values[c.spreadValue(n.labels)]++
		case sel.scope.Matches(n.labels) && sel.canary.Matches(n.labels):
			values[c.spreadValue(n.labels)] += 0
		}
	}
	limit := want
	if len(c.SpreadKeys) > 0 && len(values) > 0 {
		limit = (want + len(values) - 1) / len(values)
	}
	for i := range ns {
		n := &ns[i]
		if picked >= want {
			break
		}
		if !n.Present || !n.Desired || !n.Outdated() || !sel.scope.Matches(n.labels) || !sel.canary.Matches(n.labels) {
			continue
		}
		if v := c.spreadValue(n.labels); values[v] < limit {
			inSet[i] = true
			picked++
			values[v]++
		}
	}

	done, outside := true, false
	var failed [][2]string // pod, why
	for i := range ns {
		n := &ns[i]
		switch {
		case inSet[i]:
			cp.Nodes = append(cp.Nodes, n.Name)
			if n.Crowded || n.Old != nil || n.New == nil || !avail(n.New) {
				done = false
			}
			if !n.Crowded && n.New != nil {
				if why := c.AutoFail.judge(n.New, c.Restarts[n.New.Name], now); why != "" {
					failed = append(failed, [2]string{n.New.Name, why})
				}
			}
		case n.Outdated() && n.Present && sel.scope.Matches(n.labels):
			outside = true
		}
	}
	slices.SortFunc(failed, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	for _, f := range failed {
		cp.Failed = append(cp.Failed, f[0])
	}
	if len(failed) > 0 {
		cp.Reason = failed[0][1]
	}
	switch {
	case c.Verdicts[hash] == Abort:
		cp.Phase = PhaseAborted
		cp.Reason = "aborted by verdict"
	case len(cp.Failed) > 0:
		cp.Phase = PhaseAborted
	case done && outside:
		cp.Phase = PhaseWaiting
	default:
		cp.Phase = PhaseRunning
	}
	return cp, inSet
}

// spreadValue is a node's combination of values of the spread keys.
func (c *Canary) spreadValue(labels map[string]string) string {
	if len(c.SpreadKeys) == 0 {
		return ""
	}
	vals := make([]string, len(c.SpreadKeys))
	for i, k := range c.SpreadKeys {
		vals[i] = labels[k]
	}
	return strings.Join(vals, "\x00")
}

// judge returns why pod fails the canary, or "".
func (a *AutoFail) judge(pod *api.Pod, restarts int32, now time.Time) string {
	if a == nil {
		return ""
	}
	if why := a.Judge(pod.Phase == api.PodFailed, restarts, pod.Ready, now.Sub(pod.Created)); why != "" {
		return "pod " + pod.Name + " " + why
	}
	return ""
}

// Judge is the health gates' verdict on one new pod: why it fails them, or
// "" when it passes. The pod fails them when it failed (phase Failed),
// when its containers restarted more than MaxRestarts times, or when it is
// not Ready more than MaxUnready after its creation (age is the time since
// then; a MaxUnready of 0 does not judge readiness). It is the one rule for
// the canary here and for any driver that gates a rollout on its new pods
// (package kube/progressive's gates).
func (a AutoFail) Judge(failed bool, restarts int32, ready bool, age time.Duration) string {
	switch {
	case failed:
		return "failed"
	case restarts > a.MaxRestarts:
		return fmt.Sprintf("restarted %d times (gate: at most %d)", restarts, a.MaxRestarts)
	case a.MaxUnready > 0 && !ready && age > a.MaxUnready:
		return fmt.Sprintf("not Ready %s after its creation (gate: Ready within %s)", age.Round(time.Second), a.MaxUnready)
	}
	return ""
}
