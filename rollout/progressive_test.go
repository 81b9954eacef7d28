package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

// progressiveCase is one rule of docs/progressive-delivery.md on a layout
// (see build); labels gives node i the labels "k=v,k=v" of labels[i].
type progressiveCase struct {
	name, reason string
	strategy     api.UpdateStrategy
	layout       []string
	labels       []string
	opts         rollout.Progressive
	want         stepShape
	wantHeld     rollout.Hold
	// wantProgress, when set, checks the reported progress.
	wantProgress func(t *testing.T, p rollout.Progress)
}

// zoneLabels gives the nodes of a layout the zone labels of zs, one
// letter per node ("aabbc"), "-" for none.
func zoneLabels(zs string) []string {
	out := make([]string, len(zs))
	for i, z := range zs {
		if z != '-' {
			out[i] = rollout.LabelZone + "=" + string(z)
		}
	}
	return out
}

func (f *fixture) label(specs []string) {
	for i, spec := range specs {
		if spec == "" {
			continue
		}
		if f.nodes[i].Labels == nil {
			f.nodes[i].Labels = map[string]string{}
		}
		for _, kv := range strings.Split(spec, ",") {
			k, v, _ := strings.Cut(kv, "=")
			f.nodes[i].Labels[k] = v
		}
	}
}

func scope(kv ...string) *api.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &api.LabelSelector{MatchLabels: m}
}

func surgeAndUnavailable(s, u int32) api.UpdateStrategy {
	return rollingUpdate(api.Int(u), api.Int(s))
}

var progressiveCases = []progressiveCase{
	// Partition.
	{
		name:     "partition keeps the first nodes by name",
		reason:   "partition 3 of 5 outdated: the update set is the last 2 names (node-004, node-003); maxUnavailable 5 takes both",
		strategy: maxUnavailable(api.Int(5)),
		layout:   uniform(5, "O"),
		opts:     rollout.Progressive{Partition: api.Int(3)},
		want:     stepShape{Delete: del(placement.Outdated, "node-003-old0", "node-004-old0")},
	},
	{
		name:     "partition percent rounds down",
		reason:   "50% of 5 desired is 2.5 → 2 kept, 3 may update",
		strategy: maxUnavailable(api.Int(5)),
		layout:   uniform(5, "O"),
		opts:     rollout.Progressive{Partition: api.Percent("50%")},
		want:     stepShape{Delete: del(placement.Outdated, "node-002-old0", "node-003-old0", "node-004-old0")},
	},
	{
		name:     "updated nodes use up the partition",
		reason:   "node-000 is updated: 4 outdated, partition 3 → one more node, the last by name",
		strategy: maxUnavailable(api.Int(5)),
		layout:   []string{"N", "O", "O", "O", "O"},
		opts:     rollout.Progressive{Partition: api.Int(3)},
		want:     stepShape{Delete: del(placement.Outdated, "node-004-old0")},
	},
	{
		name:     "partition reached",
		reason:   "2 outdated, partition 2: nothing may update",
		strategy: maxUnavailable(api.Int(5)),
		layout:   []string{"N", "N", "N", "O", "O"},
		opts:     rollout.Progressive{Partition: api.Int(2)},
		wantHeld: rollout.PartitionReached,
	},
	{
		name:     "partition with budgets: name order inside the set",
		reason:   "the set is node-004 and node-003; maxUnavailable 1 visits in name order and takes node-003",
		strategy: maxUnavailable(api.Int(1)),
		layout:   uniform(5, "O"),
		opts:     rollout.Progressive{Partition: api.Int(3)},
		want:     stepShape{Delete: del(placement.Outdated, "node-003-old0")},
	},
	{
		name:     "partition with surge",
		reason:   "the update set bounds surge creates as well",
		strategy: maxSurge(api.Int(5)),
		layout:   uniform(5, "O"),
		opts:     rollout.Progressive{Partition: api.Int(4)},
		want:     stepShape{Create: []string{"node-004"}},
	},
	{
		name:     "unready old pod outside the partition is left alone",
		reason:   "upstream deletes every unready old pod; under a partition only those in the update set (node-002 is kept, node-003 goes)",
		strategy: maxUnavailable(api.Int(1)),
		layout:   []string{"O", "O", "o", "o"},
		opts:     rollout.Progressive{Partition: api.Int(3)},
		want:     stepShape{Delete: del(placement.Outdated, "node-003-old0")},
	},

	// Update scope.
	{
		name:     "scope limits the update",
		reason:   "only node-001 and node-003 match pool=blue",
		strategy: maxUnavailable(api.Int(5)),
		layout:   uniform(4, "O"),
		labels:   []string{"pool=green", "pool=blue", "", "pool=blue"},
		opts:     rollout.Progressive{Scope: scope("pool", "blue")},
		want:     stepShape{Delete: del(placement.Outdated, "node-001-old0", "node-003-old0")},
	},
	{
		name:     "nothing in scope",
		reason:   "outdated nodes remain, none match",
		strategy: maxUnavailable(api.Int(5)),
		layout:   uniform(2, "O"),
		opts:     rollout.Progressive{Scope: scope("pool", "blue")},
		wantHeld: rollout.OutOfScope,
	},
	{
		name:     "scope and partition",
		reason:   "3 in scope of 4 outdated, partition 2 → 2 may update, from the end of the names within scope",
		strategy: maxUnavailable(api.Int(5)),
		layout:   uniform(4, "O"),
		labels:   []string{"pool=blue", "pool=blue", "pool=blue", ""},
		opts:     rollout.Progressive{Scope: scope("pool", "blue"), Partition: api.Int(2)},
		want:     stepShape{Delete: del(placement.Outdated, "node-001-old0", "node-002-old0")},
	},

	// Pause and freeze.
	{
		name:     "pause",
		reason:   "no rolling-update writes at all",
		strategy: maxUnavailable(api.Int(5)),
		layout:   []string{"O", "o", "ON"},
		opts:     rollout.Progressive{Pause: true},
		wantHeld: rollout.Paused,
	},
	{
		name:     "freeze",
		reason:   "no rolling-update writes at all",
		strategy: maxSurge(api.Int(5)),
		layout:   []string{"O", "o"},
		opts:     rollout.Progressive{Freeze: true},
		wantHeld: rollout.Frozen,
	},

	// Strict budgets.
	{
		name:     "strict: unready old pods cost budget",
		reason:   "upstream deletes all 3 unready old pods; strict deletes 1, unready first",
		strategy: maxUnavailable(api.Int(1)),
		layout:   []string{"O", "o", "o", "o", "O"},
		opts:     rollout.Progressive{StrictBudgets: true},
		want:     stepShape{Delete: del(placement.Outdated, "node-001-old0")},
	},
	{
		name:     "strict: untouched unready old pods do not use the budget",
		reason:   "maxUnavailable 2 with 3 unready old pods: 2 of them go, nothing is in flight",
		strategy: maxUnavailable(api.Int(2)),
		layout:   []string{"o", "o", "o", "O"},
		opts:     rollout.Progressive{StrictBudgets: true},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0", "node-001-old0")},
	},
	{
		name:     "strict: in-flight nodes use the budget",
		reason:   "node-000 has an unavailable new pod: maxUnavailable 1 is used up, even for the unready old pod",
		strategy: maxUnavailable(api.Int(1)),
		layout:   []string{"n", "o", "O"},
		opts:     rollout.Progressive{StrictBudgets: true},
	},
	{
		name:     "strict: nodes outside the scope count",
		reason:   "node-000 is out of scope but has an unavailable new pod; the budget of 1 is used",
		strategy: maxUnavailable(api.Int(1)),
		layout:   []string{"n", "O"},
		labels:   []string{"", "pool=blue"},
		opts:     rollout.Progressive{StrictBudgets: true, Scope: scope("pool", "blue")},
	},
	{
		name:     "non-strict: nodes outside the update set do not count",
		reason:   "node-000's unready old pod is out of scope and left alone; it does not use node-001's budget",
		strategy: maxUnavailable(api.Int(1)),
		layout:   []string{"o", "O"},
		labels:   []string{"", "pool=blue"},
		opts:     rollout.Progressive{Scope: scope("pool", "blue")},
		want:     stepShape{Delete: del(placement.Outdated, "node-001-old0")},
	},
	{
		name:     "strict surge: unready old pods cost surge",
		reason:   "upstream surges onto every unready old pod at once; strict creates maxSurge 1, the unready first",
		strategy: maxSurge(api.Int(1)),
		layout:   []string{"O", "o", "o"},
		opts:     rollout.Progressive{StrictBudgets: true},
		want:     stepShape{Create: []string{"node-001"}},
	},

	// Surge with unavailability.
	{
		name:     "surge then unavailable",
		reason:   "maxSurge 1 surges onto node-000; maxUnavailable 2 deletes the next two old pods outright",
		strategy: surgeAndUnavailable(1, 2),
		layout:   uniform(5, "O"),
		opts:     rollout.Progressive{SurgeWithUnavailable: true},
		want:     stepShape{Create: []string{"node-000"}, Delete: del(placement.Outdated, "node-001-old0", "node-002-old0")},
	},
	{
		name:     "surge with unavailable off: upstream ignores maxUnavailable",
		reason:   "without the extension the pair plans as upstream's surge",
		strategy: surgeAndUnavailable(1, 2),
		layout:   uniform(5, "O"),
		opts:     rollout.Progressive{StrictBudgets: false, Partition: api.Int(0)},
		want:     stepShape{Create: []string{"node-000"}},
	},
	{
		name:     "surge with unavailable: unavailable nodes use the budget",
		reason:   "node-000 lacks an available pod (new pod unavailable) and node-001 is surging: one outright delete is left",
		strategy: surgeAndUnavailable(1, 2),
		layout:   []string{"n", "On", "O", "O"},
		opts:     rollout.Progressive{SurgeWithUnavailable: true},
		want:     stepShape{Delete: del(placement.Outdated, "node-002-old0")},
	},
	{
		name:     "surge with unavailable: unready old pods count unavailable",
		reason:   "node-000's unready old pod gets a new pod at once and counts; maxUnavailable 1 is used",
		strategy: surgeAndUnavailable(1, 1),
		layout:   []string{"o", "O", "O"},
		opts:     rollout.Progressive{SurgeWithUnavailable: true},
		want:     stepShape{Create: []string{"node-000", "node-001"}},
	},

	// Zones.
	{
		name:     "one zone at a time",
		reason:   "zones a, b, c in name order; maxUnavailable 5 is resolved per zone; only zone a updates",
		strategy: maxUnavailable(api.Int(5)),
		layout:   uniform(5, "O"),
		labels:   zoneLabels("aabbc"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0", "node-001-old0")},
		wantProgress: func(t *testing.T, p rollout.Progress) {
			require.Equal(t, &rollout.ZoneProgress{Active: []string{"a"}, Waiting: []string{"b", "c"}}, p.Zones)
		},
	},
	{
		name:     "two zones at a time",
		reason:   "MaxConcurrent 2: zones a and b",
		strategy: maxUnavailable(api.Int(5)),
		layout:   uniform(5, "O"),
		labels:   zoneLabels("aabbc"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{MaxConcurrent: 2}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0", "node-001-old0", "node-002-old0", "node-003-old0")},
	},
	{
		name:     "a zone in flight goes first",
		reason:   "zone b has a new pod that is not available yet: it keeps its slot before zone a",
		strategy: maxUnavailable(api.Int(5)),
		layout:   []string{"O", "O", "n", "O", "O"},
		labels:   zoneLabels("aabbc"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{}},
		want:     stepShape{Delete: del(placement.Outdated, "node-003-old0")},
		wantProgress: func(t *testing.T, p rollout.Progress) {
			require.Equal(t, &rollout.ZoneProgress{Active: []string{"b"}, Waiting: []string{"a", "c"}}, p.Zones)
		},
	},
	{
		name:     "budgets are the cluster's",
		reason:   "maxUnavailable 50% of the 6 desired nodes is 3, all spent in zone a, the active group",
		strategy: maxUnavailable(api.Percent("50%")),
		layout:   uniform(6, "O"),
		labels:   zoneLabels("aaaabb"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0", "node-001-old0", "node-002-old0")},
	},
	{
		name: "an integer budget bounds the active groups together",
		reason: "maxUnavailable 3 with three groups active is 3 nodes down in all, not 3 per group " +
			"(issue 28, item 10: it let 8 nodes go down)",
		strategy: maxUnavailable(api.Int(3)),
		layout:   uniform(12, "O"),
		labels:   zoneLabels("aaaabbbbcccc"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{MaxConcurrent: 3}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0", "node-001-old0", "node-002-old0")},
	},
	{
		name:     "an empty Zones spends no budget upstream does not have",
		reason:   "the one node should not run the pod (untolerated NoSchedule), so 30% of 0 desired is 0: upstream deletes nothing (issue 28, item 9)",
		strategy: maxUnavailable(api.Percent("30%")),
		layout:   []string{"!O"},
		opts:     rollout.Progressive{Zones: &rollout.Zones{}},
	},
	{
		name:     "a group of nodes that should not run the pod spends the cluster's budget",
		reason:   "30% of 1 desired node is 1: node-000 in zone a takes it, and zone b's node, which will get no new pod, waits as upstream's pass would",
		strategy: maxUnavailable(api.Percent("30%")),
		layout:   []string{"O", "!O"},
		labels:   zoneLabels("ab"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{MaxConcurrent: 2}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0")},
	},
	{
		name:     "budgets per zone",
		reason:   "PerGroupBudgets: maxUnavailable 50% of zone a's 4 nodes is 2",
		strategy: maxUnavailable(api.Percent("50%")),
		layout:   uniform(6, "O"),
		labels:   zoneLabels("aaaabb"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{PerGroupBudgets: true}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0", "node-001-old0")},
	},
	{
		name:     "budgets per zone within the cluster's",
		reason:   "PerGroupBudgets: 3 per group, and the cluster's 3 bound the sum over the three active groups",
		strategy: maxUnavailable(api.Int(3)),
		layout:   uniform(12, "O"),
		labels:   zoneLabels("aaaabbbbcccc"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{MaxConcurrent: 3, PerGroupBudgets: true}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0", "node-001-old0", "node-002-old0")},
	},
	{
		name:     "budgets per zone: a group that should not run the pod",
		reason:   "PerGroupBudgets: zone b's group has no desired node, and the cluster's budget of 1 is spent in zone a",
		strategy: maxUnavailable(api.Percent("30%")),
		layout:   []string{"O", "!O"},
		labels:   zoneLabels("ab"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{MaxConcurrent: 2, PerGroupBudgets: true}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0")},
	},
	{
		name:     "budgets per zone: surge bounded by the cluster",
		reason:   "PerGroupBudgets: maxSurge 2 per group, 2 in all",
		strategy: maxSurge(api.Int(2)),
		layout:   uniform(6, "O"),
		labels:   zoneLabels("aabbcc"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{MaxConcurrent: 3, PerGroupBudgets: true}},
		want:     stepShape{Create: []string{"node-000", "node-001"}},
	},
	{
		name:     "unlabelled nodes last",
		reason:   "the group \"\" comes after every named group",
		strategy: maxUnavailable(api.Int(5)),
		layout:   uniform(3, "O"),
		labels:   zoneLabels("-b-"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{}},
		want:     stepShape{Delete: del(placement.Outdated, "node-001-old0")},
	},
	{
		name:     "custom zone key",
		reason:   "grouped by rack; the zone label is ignored",
		strategy: maxUnavailable(api.Int(5)),
		layout:   uniform(3, "O"),
		labels:   []string{"rack=r2," + rollout.LabelZone + "=a", "rack=r1," + rollout.LabelZone + "=a", "rack=r2"},
		opts:     rollout.Progressive{Zones: &rollout.Zones{Key: "rack"}},
		want:     stepShape{Delete: del(placement.Outdated, "node-001-old0")},
	},
	{
		name:     "done zones are skipped",
		reason:   "zone a is updated and available: zone b is next",
		strategy: maxUnavailable(api.Int(5)),
		layout:   []string{"N", "N", "O", "O"},
		labels:   zoneLabels("aabb"),
		opts:     rollout.Progressive{Zones: &rollout.Zones{}},
		want:     stepShape{Delete: del(placement.Outdated, "node-002-old0", "node-003-old0")},
	},

	// Canary.
	{
		name:     "canary nodes first",
		reason:   "2 canaries, the first names; maxUnavailable 6 would take every node",
		strategy: maxUnavailable(api.Int(6)),
		layout:   uniform(6, "O"),
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2)}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0", "node-001-old0")},
		wantProgress: func(t *testing.T, p rollout.Progress) {
			require.Equal(t, &rollout.CanaryProgress{Phase: rollout.PhaseRunning, Want: 2, Nodes: []string{"node-000", "node-001"}}, p.Canary)
		},
	},
	{
		name:     "canary percent rounds up",
		reason:   "10% of 6 is 0.6 → 1",
		strategy: maxUnavailable(api.Int(6)),
		layout:   uniform(6, "O"),
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Percent("10%")}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0")},
	},
	{
		name:     "canary spread over zones",
		reason:   "2 canaries over zones a and b: one each, the first name of each",
		strategy: maxUnavailable(api.Int(6)),
		layout:   uniform(6, "O"),
		labels:   zoneLabels("aaabbb"),
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2), SpreadKeys: []string{rollout.LabelZone}}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0", "node-003-old0")},
	},
	{
		name:     "canary selector",
		reason:   "only nodes labelled canary=yes may be canaries",
		strategy: maxUnavailable(api.Int(6)),
		layout:   uniform(4, "O"),
		labels:   []string{"", "canary=yes", "", "canary=yes"},
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(1), Selector: scope("canary", "yes")}},
		want:     stepShape{Delete: del(placement.Outdated, "node-001-old0")},
	},
	{
		name:     "committed canaries stay canaries",
		reason:   "node-002 already runs the new revision: it is one of the 2 canaries, node-000 the other",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"O", "O", "N", "O"},
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2)}},
		want:     stepShape{Delete: del(placement.Outdated, "node-000-old0")},
	},
	{
		name:     "canary waits for a verdict",
		reason:   "both canaries run available new pods; the others wait",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"N", "N", "O", "O"},
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2)}},
		wantHeld: rollout.CanaryWaiting,
	},
	{
		name:     "canary promoted",
		reason:   "Promote for the current hash: the rollout goes on as upstream's",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"N", "N", "O", "O"},
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2), Verdicts: map[string]rollout.Verdict{hashNew: rollout.Promote}}},
		want:     stepShape{Delete: del(placement.Outdated, "node-002-old0", "node-003-old0")},
	},
	{
		name:     "a verdict for another revision does not count",
		reason:   "Promote for hash-old says nothing about hash-new",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"N", "N", "O", "O"},
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2), Verdicts: map[string]rollout.Verdict{hashOld: rollout.Promote}}},
		wantHeld: rollout.CanaryWaiting,
	},
	{
		name:     "canary aborted by verdict",
		reason:   "Abort: no writes, even for the canary still updating",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"N", "O", "O", "O"},
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2), Verdicts: map[string]rollout.Verdict{hashNew: rollout.Abort}}},
		wantHeld: rollout.CanaryAborted,
	},
	{
		name:     "canary fails on restarts",
		reason:   "node-000's new pod restarted 4 times, more than 3",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"N", "O", "O"},
		opts: rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2),
			AutoFail: &rollout.AutoFail{MaxRestarts: 3}, Restarts: map[string]int32{"node-000-new0": 4}}},
		wantHeld: rollout.CanaryAborted,
		wantProgress: func(t *testing.T, p rollout.Progress) {
			require.Equal(t, []string{"node-000-new0"}, p.Canary.Failed)
			require.Equal(t, "pod node-000-new0 restarted 4 times (gate: at most 3)", p.Canary.Reason)
		},
	},
	{
		name:     "restarts at the threshold pass",
		reason:   "3 restarts is not more than 3",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"N", "O", "O"},
		opts: rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2),
			AutoFail: &rollout.AutoFail{MaxRestarts: 3}, Restarts: map[string]int32{"node-000-new0": 3}}},
		want: stepShape{Delete: del(placement.Outdated, "node-001-old0")},
	},
	{
		name:     "canary fails when unready too long",
		reason:   "node-000's new pod has been Pending for 2h, beyond MaxUnready 10m",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"n", "O", "O"},
		opts: rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2),
			AutoFail: &rollout.AutoFail{MaxUnready: 10 * time.Minute}}},
		wantHeld: rollout.CanaryAborted,
	},
	{
		name:     "only pods of the current revision are judged",
		reason:   "node-002's old pod restarted 9 times; it is no canary pod",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"O", "O", "O"},
		opts: rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(1),
			AutoFail: &rollout.AutoFail{}, Restarts: map[string]int32{"node-002-old0": 9}}},
		want: stepShape{Delete: del(placement.Outdated, "node-000-old0")},
	},
	{
		name:     "committed nodes are canaries whatever their labels",
		reason:   "node-002 runs the new revision outside the canary selector: it fills the one canary slot",
		strategy: maxUnavailable(api.Int(6)),
		layout:   []string{"O", "O", "N"},
		labels:   []string{"canary=yes"},
		opts:     rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(1), Selector: scope("canary", "yes")}},
		wantHeld: rollout.CanaryWaiting,
		wantProgress: func(t *testing.T, p rollout.Progress) {
			require.Equal(t, []string{"node-002"}, p.Canary.Nodes)
		},
	},
	{
		name:     "canary then partition",
		reason:   "the canary picks node-000 and node-001; partition 4 of 5 lets one node go, the last of them by name",
		strategy: maxUnavailable(api.Int(6)),
		layout:   uniform(5, "O"),
		opts:     rollout.Progressive{Partition: api.Int(4), Canary: &rollout.Canary{Nodes: api.Int(2)}},
		want:     stepShape{Delete: del(placement.Outdated, "node-001-old0")},
	},
}

func TestProgressiveRollingUpdate(t *testing.T) {
	for _, tt := range progressiveCases {
		t.Run(tt.name, func(t *testing.T) {
			f := build(tt.strategy, tt.layout...)
			f.label(tt.labels)
			require.Empty(t, tt.opts.Validate(), "case options must be valid")
			got, prog, err := rollout.RollingUpdate(f.cluster(t), t0, hashNew, tt.opts)
			require.NoError(t, err, tt.reason)
			if diff := cmp.Diff(tt.want, shapeOf(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("RollingUpdate() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if prog.Held != tt.wantHeld {
				t.Errorf("Held = %v, want %v: %s", prog.Held, tt.wantHeld, tt.reason)
			}
			if tt.wantProgress != nil {
				tt.wantProgress(t, prog)
			}
		})
	}
}
