package revision

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
)

func limit(n int32) func(*api.DaemonSet) {
	return func(ds *api.DaemonSet) { ds.RevisionHistoryLimit = &n }
}

func TestCleanup(t *testing.T) {
	var eleven []Revision
	for i := int64(1); i <= 11; i++ {
		eleven = append(eleven, rev("agent-r"+string(rune('a'+i-1)), i, "v"))
	}
	terminalDeleting := pod("p-term", "b")
	terminalDeleting.Phase, terminalDeleting.Deleting = api.PodFailed, true

	tests := []struct {
		name   string
		reason string
		ds     *api.DaemonSet
		old    []Revision
		pods   []api.Pod
		want   []string
	}{{
		name:   "UnderLimit",
		reason: "no more old revisions than the limit: nothing to delete",
		ds:     testDS("v", limit(2)),
		old:    []Revision{rev("agent-a", 1, "a"), rev("agent-b", 2, "b")},
	}, {
		name:   "DefaultLimitIsTen",
		reason: "a nil limit keeps ten; the oldest of eleven goes",
		ds:     testDS("v"),
		old:    eleven,
		want:   []string{"agent-ra"},
	}, {
		name:   "OldestFirst",
		reason: "delete by revision number, oldest first, whatever the input order",
		ds:     testDS("v", limit(1)),
		old:    []Revision{rev("agent-c", 3, "c"), rev("agent-a", 9, "a"), rev("agent-b", 1, "b")},
		want:   []string{"agent-b", "agent-c"},
	}, {
		name:   "EqualNumbersByName",
		reason: "equal numbers are visited by name",
		ds:     testDS("v", limit(1)),
		old:    []Revision{rev("agent-z", 1, "z"), rev("agent-y", 1, "y"), rev("agent-x", 1, "x")},
		want:   []string{"agent-x", "agent-y"},
	}, {
		name:   "SkipLive",
		reason: "a revision whose hash a pod carries is skipped; the next oldest goes instead",
		ds:     testDS("v", limit(2)),
		old:    []Revision{rev("agent-a", 1, "a"), rev("agent-b", 2, "b"), rev("agent-c", 3, "c")},
		pods:   []api.Pod{pod("p1", "a")},
		want:   []string{"agent-b"},
	}, {
		name:   "LiveMayExceedLimit",
		reason: "live revisions are never deleted, so more than limit may remain",
		ds:     testDS("v", limit(0)),
		old:    []Revision{rev("agent-a", 1, "a"), rev("agent-b", 2, "b"), rev("agent-c", 3, "c")},
		pods:   []api.Pod{pod("p1", "a"), terminalDeleting},
		want:   []string{"agent-c"},
	}, {
		name:   "LimitZero",
		reason: "limit 0 deletes every old revision no pod refers to",
		ds:     testDS("v", limit(0)),
		old:    []Revision{rev("agent-a", 1, "a"), rev("agent-b", 2, "b")},
		pods:   []api.Pod{pod("p1", "v")},
		want:   []string{"agent-a", "agent-b"},
	}, {
		name:   "TerminalDeletedPodsAreLive",
		reason: "cleanup counts pods that are terminal and being deleted",
		ds:     testDS("v", limit(0)),
		old:    []Revision{rev("agent-b", 2, "b")},
		pods:   []api.Pod{terminalDeleting},
	}, {
		name:   "NoHashLabelNeverLive",
		reason: "a revision without hash label cannot be live; pods without the label make nothing live",
		ds:     testDS("v", limit(0)),
		old:    []Revision{rev("agent-a", 1, "a", legacy), rev("agent-e", 2, "e", hashLabel(""))},
		pods:   []api.Pod{pod("p1", "")},
		want:   []string{"agent-a", "agent-e"},
	}, {
		name:   "LegacyLabelledByName",
		reason: "a legacy revision labelled with its name is no longer matched by pods carrying its old hash (conformance extra-dupcr-42)",
		ds:     testDS("v", limit(1)),
		old:    []Revision{relabelled(rev("agent-5b", 1, "x")), rev("agent-54", 2, "y"), rev("agent-78", 3, "z")},
		pods:   []api.Pod{pod("p1", "5b"), pod("p2", "54"), pod("p3", "78")},
		want:   []string{"agent-5b"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := cloneAll(tt.old)
			got := Cleanup(tt.ds, old, podPtrs(tt.pods))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Cleanup() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if diff := cmp.Diff(tt.old, old); diff != "" {
				t.Errorf("Cleanup() changed its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestRollback(t *testing.T) {
	history := []Revision{
		rev("agent-v1", 1, "v1"),
		rev("agent-v3", 3, "v3"),
		rev("agent-v2", 2, "v2"),
		rev("agent-foreign", 4, "f", ownedBy("uid-other")),
		rev("agent-orphan", 5, "o", orphan),
		rev("agent-unselected", 6, "u", withLabels("app", "else")),
		rev("agent-elsewhere", 7, "e", inNamespace("other")),
	}
	tests := []struct {
		name      string
		reason    string
		ds        *api.DaemonSet
		revisions []Revision
		to        int64
		want      RollbackResult
	}{{
		name:      "PreviousRevision",
		reason:    "undo without a number takes the second-highest revision",
		ds:        testDS("v3"),
		revisions: history,
		want:      RollbackResult{Outcome: RolledBack, Message: "rolled back", Name: "agent-v2", Revision: 2, Template: []byte("v2")},
	}, {
		name:      "ToRevision",
		reason:    "an explicit number picks that revision",
		ds:        testDS("v3"),
		revisions: history,
		to:        1,
		want:      RollbackResult{Outcome: RolledBack, Message: "rolled back", Name: "agent-v1", Revision: 1, Template: []byte("v1")},
	}, {
		name:      "Skipped",
		reason:    "the template already holds the revision's data",
		ds:        testDS("v3"),
		revisions: history,
		to:        3,
		want: RollbackResult{Outcome: Skipped, Name: "agent-v3", Revision: 3,
			Message: "skipped rollback (current template already matches revision 3)"},
	}, {
		name:      "SkippedPreviousPrintsZero",
		reason:    "kubectl prints the requested number, 0 for an undo without number",
		ds:        testDS("v2"),
		revisions: history,
		want: RollbackResult{Outcome: Skipped, Name: "agent-v2", Revision: 2,
			Message: "skipped rollback (current template already matches revision 0)"},
	}, {
		name:      "NotFound",
		reason:    "no revision of the history has that number",
		ds:        testDS("v3"),
		revisions: history,
		to:        9,
		want:      RollbackResult{Outcome: NotFound, Message: "unable to find specified revision 9 in history"},
	}, {
		name:      "OutsideHistoryNotFound",
		reason:    "foreign, orphan, unselected and other-namespace revisions are not in the history",
		ds:        testDS("v3"),
		revisions: history,
		to:        5,
		want:      RollbackResult{Outcome: NotFound, Message: "unable to find specified revision 5 in history"},
	}, {
		name:      "Negative",
		reason:    "a negative number is never found",
		ds:        testDS("v3"),
		revisions: history,
		to:        -1,
		want:      RollbackResult{Outcome: NotFound, Message: "unable to find specified revision -1 in history"},
	}, {
		name:      "NoPrevious",
		reason:    "undo without a number needs two revisions",
		ds:        testDS("v1"),
		revisions: []Revision{rev("agent-v1", 1, "v1"), rev("agent-x", 2, "x", orphan)},
		want:      RollbackResult{Outcome: NoPreviousRevision, Message: "no last revision to roll back to"},
	}, {
		name:   "NoPreviousEmpty",
		reason: "an empty history has no previous revision",
		ds:     testDS("v1"),
		want:   RollbackResult{Outcome: NoPreviousRevision, Message: "no last revision to roll back to"},
	}, {
		name:      "EmptyHistoryWithNumber",
		reason:    "with a number, an empty history means not found",
		ds:        testDS("v1"),
		to:        1,
		want:      RollbackResult{Outcome: NotFound, Message: "unable to find specified revision 1 in history"},
		revisions: nil,
	}, {
		name:      "SharedNumberFirstName",
		reason:    "several revisions with the requested number: the first by name",
		ds:        testDS("v9"),
		revisions: []Revision{rev("agent-b", 1, "b"), rev("agent-a", 1, "a")},
		to:        1,
		want:      RollbackResult{Outcome: RolledBack, Message: "rolled back", Name: "agent-a", Revision: 1, Template: []byte("a")},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			revisions := cloneAll(tt.revisions)
			got, err := Rollback(tt.ds, revisions, tt.to)
			mustNoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Rollback() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if diff := cmp.Diff(tt.revisions, revisions); diff != "" {
				t.Errorf("Rollback() changed its input (-before +after):\n%s", diff)
			}
		})
	}
	t.Run("InvalidSelector", func(t *testing.T) {
		ds := testDS("v1", func(ds *api.DaemonSet) {
			ds.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: api.SelectorOpIn}}}
		})
		if _, err := Rollback(ds, history, 0); err == nil {
			t.Errorf("Rollback() with an invalid selector: no error")
		}
	})
}

func TestRollbackOutcomeString(t *testing.T) {
	for o, want := range map[RollbackOutcome]string{
		RolledBack: "RolledBack", Skipped: "Skipped", NotFound: "NotFound",
		NoPreviousRevision: "NoPreviousRevision", 0: "RollbackOutcome(0)",
	} {
		if got := o.String(); got != want {
			t.Errorf("RollbackOutcome(%d).String() = %q, want %q", int(o), got, want)
		}
	}
}

func TestHistoryTable(t *testing.T) {
	tests := []struct {
		name      string
		reason    string
		revisions []Revision
		want      string
	}{{
		name:   "Empty",
		reason: "kubectl's message for no history",
		want:   "No rollout history found.",
	}, {
		name:      "OnlyForeign",
		reason:    "revisions outside the history do not count",
		revisions: []Revision{rev("agent-x", 1, "x", orphan), rev("agent-y", 2, "y", ownedBy("o"))},
		want:      "No rollout history found.",
	}, {
		name:   "SortedWithCauses",
		reason: "rows sorted by number, <none> without change cause, columns padded by two spaces",
		revisions: []Revision{
			rev("agent-c", 10, "c", changeCause("kubectl set image ds/agent app=v3")),
			rev("agent-a", 2, "a"),
			rev("agent-b", 9, "b", changeCause("")),
		},
		want: "REVISION  CHANGE-CAUSE\n" +
			"2         <none>\n" +
			"9         <none>\n" +
			"10        kubectl set image ds/agent app=v3\n",
	}, {
		name:      "SharedNumber",
		reason:    "one row per number, showing the revision whose name sorts last",
		revisions: []Revision{rev("agent-b", 1, "b", changeCause("b")), rev("agent-a", 1, "a", changeCause("a"))},
		want:      "REVISION  CHANGE-CAUSE\n1         b\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HistoryTable(testDS("v"), tt.revisions)
			mustNoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("HistoryTable() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}
