package testbed

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/progressive"
	"github.com/daemonplan/daemonplan/timeline"
)

// A real rollout drawn as `daemonplan simulate --html` draws a simulated
// one: the pod watch of the invariants keeps each node's pods of the
// DaemonSet at every event (moment), the driver each step that deleted
// (stepRow), and realTimeline turns both into a timeline.Timeline, which
// timeline.WriteHTML renders. With DAEMONPLAN_TIMELINE_DIR set, the
// scenarios that draw write their page there (docs/progressive-live.md
// shows one).

// moment is the DaemonSet's pods per node at one event, offsets from the
// watch's start.
type moment struct {
	at   time.Duration
	pods map[string][]timeline.Pod
}

// snapshot records the watch's current pods of the DaemonSet, when they
// differ from the last moment. iv.mu is held.
func (iv *invariants) snapshot() {
	now := map[string][]timeline.Pod{}
	for _, p := range iv.pods {
		if p.Labels["app"] != dsName {
			continue
		}
		st := timeline.NotReady
		switch {
		case p.DeletionTimestamp != nil:
			st = timeline.Deleting
		case isReady(p):
			st = timeline.Ready
		}
		now[p.Spec.NodeName] = append(now[p.Spec.NodeName], timeline.Pod{Name: p.Name, Hash: p.Labels[appsv1.ControllerRevisionHashLabelKey], State: st})
	}
	for n := range now {
		slices.SortFunc(now[n], func(a, b timeline.Pod) int { return strings.Compare(a.Name, b.Name) })
	}
	if k := len(iv.moments); k > 0 && samePods(iv.moments[k-1].pods, now) {
		return
	}
	// Milliseconds: the page prints offsets as they are.
	iv.moments = append(iv.moments, moment{time.Since(iv.start).Round(time.Millisecond), now})
}

func samePods(a, b map[string][]timeline.Pod) bool {
	if len(a) != len(b) {
		return false
	}
	for n, ps := range a {
		if !slices.Equal(ps, b[n]) {
			return false
		}
	}
	return true
}

// stepRow is one driver step that deleted, offset from the watch's start.
type stepRow struct {
	at  time.Time
	res progressive.StepResult
}

// realTimeline is the recorded rollout of revision hash as a Timeline:
// every node's intervals from the watch's moments, the driver's deleting
// steps as the syncs, done at the last moment.
func realTimeline(iv *invariants, d *driver, hash string) *timeline.Timeline {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	tl := &timeline.Timeline{Namespace: namespace, Name: dsName, Strategy: api.OnDelete, Start: iv.start, Outcome: timeline.Converged}
	if k := len(iv.moments); k > 0 {
		tl.Duration = iv.moments[k-1].at
	}
	hashes := map[string]bool{}
	for _, n := range iv.sc.nodes {
		h := timeline.NodeHistory{Name: n}
		for i, m := range iv.moments {
			to := tl.Duration
			if i+1 < len(iv.moments) {
				to = iv.moments[i+1].at
			}
			pods := m.pods[n]
			for _, p := range pods {
				hashes[p.Hash] = true
			}
			if k := len(h.Intervals); k > 0 && slices.Equal(h.Intervals[k-1].Pods, pods) {
				h.Intervals[k-1].To = to
				continue
			}
			h.Intervals = append(h.Intervals, timeline.Interval{From: m.at, To: to, Pods: pods})
		}
		if len(h.Intervals) > 0 {
			h.Intervals[0].From = 0
		}
		tl.Nodes = append(tl.Nodes, h)
	}
	for hs := range hashes {
		tl.Revisions = append(tl.Revisions, timeline.Revision{Hash: hs, Current: hs == hash})
	}
	slices.SortFunc(tl.Revisions, func(a, b timeline.Revision) int {
		if a.Current != b.Current {
			if a.Current {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Hash, b.Hash)
	})
	for _, s := range d.rows {
		if s.at.Sub(iv.start) > tl.Duration {
			break
		}
		sync := timeline.Sync{At: s.at.Sub(iv.start).Round(time.Millisecond), Deletes: len(s.res.Deletes), Unavailable: s.res.InUse, MaxUnavailable: s.res.Budget}
		for _, n := range s.res.Nodes {
			if n.Desired {
				sync.Desired++
			}
			if n.State == progressive.Updated {
				sync.Updated++
			}
		}
		sync.Available = sync.Desired - sync.Unavailable
		tl.Syncs = append(tl.Syncs, sync)
		tl.Steps++
	}
	return tl
}

// drawTimeline checks the recorded timeline (every node ends on one
// Ready pod of hash) and writes its page to DAEMONPLAN_TIMELINE_DIR/NAME.html
// when that is set.
func drawTimeline(t *testing.T, iv *invariants, d *driver, hash, name string) {
	t.Helper()
	tl := realTimeline(iv, d, hash)
	for _, n := range tl.Nodes {
		last := n.Intervals[len(n.Intervals)-1].Pods
		if len(last) != 1 || last[0].Hash != hash || last[0].State != timeline.Ready {
			t.Errorf("the timeline of node %s ends on %v, want one Ready pod of %s", n.Name, last, hash)
		}
	}
	t.Logf("timeline: %d nodes, %d steps, %v", len(tl.Nodes), tl.Steps, tl.Duration.Round(time.Millisecond))
	dir := os.Getenv("DAEMONPLAN_TIMELINE_DIR")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, name+".html"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := timeline.WriteHTML(f, tl, timeline.HTMLOptions{Title: fmt.Sprintf("Test bed: %s (the real DaemonSet controller and daemonplan rollout)", name)}); err != nil {
		t.Fatal(err)
	}
}
