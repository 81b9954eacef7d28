package revision

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/enum"
)

// RollbackOutcome is what `kubectl rollout undo` does. The zero value is not
// an outcome.
type RollbackOutcome int

// The rollback outcomes.
const (
	// RolledBack: the DaemonSet's template is to be replaced by
	// RollbackResult.Template.
	RolledBack RollbackOutcome = iota + 1
	// Skipped: the template already equals the chosen revision's Data.
	Skipped
	// NotFound: toRevision is negative or no revision has that number.
	NotFound
	// NoPreviousRevision: toRevision is 0 and the history holds at most one
	// revision.
	NoPreviousRevision
)

// String returns the outcome's name.
func (o RollbackOutcome) String() string {
	return enum.Name(rollbackOutcomeNames[:], int(o), "RollbackOutcome")
}

var rollbackOutcomeNames = [...]string{RolledBack: "RolledBack", Skipped: "Skipped", NotFound: "NotFound", NoPreviousRevision: "NoPreviousRevision"}

// RollbackResult is the outcome of [Rollback] with kubectl's message.
type RollbackResult struct {
	Outcome RollbackOutcome
	// Message is kubectl's text: "rolled back" (printed after
	// "daemonset.apps/NAME "), "skipped rollback (current template already
	// matches revision N)" with N the requested number (0 for the previous
	// one, as kubectl prints it), "unable to find specified revision N in
	// history" or "no last revision to roll back to" (kubectl's errors).
	Message string
	// Name and Revision identify the chosen revision (RolledBack, Skipped).
	Name     string
	Revision int64
	// Template is the chosen revision's Data when Outcome is RolledBack:
	// the new template content of the DaemonSet (kubectl patches the
	// DaemonSet with it; only the template changes). Nil otherwise.
	Template []byte
}

// Rollback decides what `kubectl rollout undo daemonset/NAME
// --to-revision=toRevision` does (upstream: kubectl's
// DaemonSetRollbacker.Rollback; docs/history.md, H15). The history is the
// revisions in ds.Namespace selected by ds.Selector and controlled by
// ds.UID (an empty UID controls nothing).
//
//  1. toRevision < 0 → [NotFound].
//  2. toRevision = 0 and at most one revision in the history →
//     [NoPreviousRevision].
//  3. toRevision = 0 → the last but one revision in order of number, then
//     name (the second-highest number; kubectl's sort leaves the order of
//     equal numbers open); toRevision > 0 → the revision with that number
//     (the first by name if several); none → [NotFound].
//  4. Its Data equals TemplateData(ds) → [Skipped]; else [RolledBack].
//
// The error is non-nil only for an invalid selector. ds must not be nil.
func Rollback(ds *api.DaemonSet, revisions []Revision, toRevision int64) (RollbackResult, error) {
	if ds == nil {
		panic("revision.Rollback: nil DaemonSet")
	}
	notFound := RollbackResult{
		Outcome: NotFound,
		Message: fmt.Sprintf("unable to find specified revision %d in history", toRevision),
	}
	if toRevision < 0 {
		return notFound, nil
	}
	hist, err := controlled(ds, revisions)
	if err != nil {
		return RollbackResult{}, err
	}
	if toRevision == 0 && len(hist) <= 1 {
		return RollbackResult{Outcome: NoPreviousRevision, Message: "no last revision to roll back to"}, nil
	}
	var to *Revision
	if toRevision == 0 {
		to = hist[len(hist)-2]
	} else {
		for _, r := range hist {
			if r.Revision == toRevision {
				to = r
				break
			}
		}
	}
	if to == nil {
		return notFound, nil
	}
	if bytes.Equal(to.Data, TemplateData(ds)) {
		return RollbackResult{
			Outcome:  Skipped,
			Message:  fmt.Sprintf("skipped rollback (current template already matches revision %d)", toRevision),
			Name:     to.Name,
			Revision: to.Revision,
		}, nil
	}
	return RollbackResult{
		Outcome:  RolledBack,
		Message:  "rolled back",
		Name:     to.Name,
		Revision: to.Revision,
		Template: append([]byte{}, to.Data...),
	}, nil
}

// HistoryTable renders `kubectl rollout history daemonset/NAME` without its
// first line (the object name): "No rollout history found." when the
// history (as for [Rollback]) is empty, else a REVISION and CHANGE-CAUSE
// table aligned by text/tabwriter as kubectl does (two spaces of padding),
// one row per revision number in ascending order, the change cause being
// the [api.AnnotationChangeCause] annotation or "<none>". When several
// revisions share a number, kubectl shows one of them; HistoryTable shows
// the one whose name sorts last.
//
// The error is non-nil only for an invalid selector. ds must not be nil.
func HistoryTable(ds *api.DaemonSet, revisions []Revision) (string, error) {
	if ds == nil {
		panic("revision.HistoryTable: nil DaemonSet")
	}
	hist, err := controlled(ds, revisions)
	if err != nil {
		return "", err
	}
	if len(hist) == 0 {
		return "No rollout history found.", nil
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintf(w, "REVISION\tCHANGE-CAUSE\n")
	for i, r := range hist {
		if i+1 < len(hist) && hist[i+1].Revision == r.Revision {
			continue // a later name with the same number wins
		}
		cause := r.Annotations[api.AnnotationChangeCause]
		if cause == "" {
			cause = "<none>"
		}
		fmt.Fprintf(w, "%d\t%s\n", r.Revision, cause)
	}
	w.Flush()
	return b.String(), nil
}

// controlled returns kubectl's history set of ds sorted by number, then
// name.
func controlled(ds *api.DaemonSet, revisions []Revision) ([]*Revision, error) {
	matches, err := compileSelector(ds.Selector)
	if err != nil {
		return nil, err
	}
	var out []*Revision
	for i := range revisions {
		r := &revisions[i]
		if r.Namespace == ds.Namespace && r.Controller != nil && r.Controller.UID != "" && r.Controller.UID == ds.UID && matches(r.Labels) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Revision != out[j].Revision {
			return out[i].Revision < out[j].Revision
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}
