package revision

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/selector"
)

// fuzzInput decodes arbitrary bytes into a DaemonSet, revisions and pods.
// Small alphabets make names, labels and data collide often.
type fuzzInput struct {
	b []byte
}

func (in *fuzzInput) next() byte {
	if len(in.b) == 0 {
		return 0
	}
	c := in.b[0]
	in.b = in.b[1:]
	return c
}

var fuzzData = []string{"t0", "t1", "t2", ""}

// fuzzSuffix makes revision names that testHash produces, so that names
// collide.
var fuzzSuffix = []string{"", "-c0", "-c1", "-x"}

func (in *fuzzInput) daemonSet() *api.DaemonSet {
	flags := in.next()
	ds := testDS(fuzzData[in.next()%4])
	ds.Deleting = flags&1 != 0
	if flags&2 != 0 {
		ds.Status.CollisionCount = int32p(int32(int8(in.next())))
	}
	switch (flags >> 2) & 3 {
	case 1:
		ds.Selector = nil
	case 2:
		ds.Selector = &api.LabelSelector{}
	case 3:
		ds.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "app", Operator: api.SelectorOpIn, Values: []string{"agent", "x"}},
		}}
	}
	if flags&16 != 0 {
		ds.TemplateData = nil // canonical encoding of Template
	}
	if flags&32 != 0 {
		n := int32(in.next()%4) - 1
		ds.RevisionHistoryLimit = &n
	}
	return ds
}

func (in *fuzzInput) revisions() []Revision {
	var out []Revision
	for len(in.b) >= 4 && len(out) < 32 {
		a, b, c, d := in.next(), in.next(), in.next(), in.next()
		r := Revision{
			Namespace: testNS,
			Name:      "agent-" + fuzzData[a%3] + fuzzSuffix[(a>>2)%4],
			Labels:    map[string]string{"app": "agent"},
			Revision:  int64(int8(c)),
			Data:      []byte(fuzzData[d%4]),
			Deleting:  d&4 != 0,
		}
		if a&128 != 0 {
			r.Namespace = "other"
		}
		switch b % 3 {
		case 0:
			r.Controller = dsRef()
		case 1:
			r.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: "uid-other"}
		}
		switch (b >> 2) % 4 {
		case 0:
			r.Labels[api.LabelRevisionHash] = r.Name[len("agent-"):]
		case 1:
			r.Labels[api.LabelRevisionHash] = "h" + strconv.Itoa(int(d>>3)%3)
		case 2:
			r.Labels = map[string]string{"app": "else"}
		}
		if d&8 != 0 {
			r.Data = []byte(fuzzData[0]) // more current revisions
		}
		out = append(out, r)
	}
	return out
}

func (in *fuzzInput) pods(n int) []api.Pod {
	var out []api.Pod
	for i := 0; i < n && len(in.b) > 0; i++ {
		c := in.next()
		p := pod("p"+strconv.Itoa(int(c%5)), "")
		if c&8 != 0 {
			p.Labels[api.LabelRevisionHash] = "h" + strconv.Itoa(int(c>>4)%3)
		}
		out = append(out, p)
	}
	return out
}

func FuzzConstruct(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 2, 0, 1, 0, 3, 1, 4, 8, 0, 0, 5, 8, 9, 10})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{b: data}
		ds := in.daemonSet()
		pods := in.pods(int(in.next() % 6))
		revisions := in.revisions()
		before, podsBefore := cloneAll(revisions), clonePods(pods)

		for _, opts := range []Options{{}, testOpts} {
			h, err := Construct(ds, revisions, podPtrs(pods), opts)
			if diff := cmp.Diff(before, revisions); diff != "" {
				t.Fatalf("Construct() changed its revisions:\n%s", diff)
			}
			if diff := cmp.Diff(podsBefore, pods); diff != "" {
				t.Fatalf("Construct() changed its pods:\n%s", diff)
			}
			for _, names := range [][]string{h.DeleteDuplicates, h.Adopt, h.Release, revisionNames(h.Old), revisionNames(h.Update)} {
				if !sort.StringsAreSorted(names) {
					t.Fatalf("unsorted output %q", names)
				}
			}
			var ae *AlreadyExistsError
			var fe field.ErrorList
			switch {
			case err == nil:
				if !bytes.Equal(h.Current.Data, TemplateData(ds)) {
					t.Fatalf("Current %q does not hold the template", h.Current.Name)
				}
				if h.Hash != h.Current.Labels[api.LabelRevisionHash] {
					t.Fatalf("Hash %q is not Current's label", h.Hash)
				}
				if len(h.Create) > 1 {
					t.Fatalf("%d creates", len(h.Create))
				}
			case errors.As(err, &ae):
				if h.CollisionCount == nil || h.Create != nil || h.Current.Name != "" {
					t.Fatalf("collision plan %+v", h)
				}
			case errors.As(err, &fe):
			default:
				t.Fatalf("unexpected error %T: %v", err, err)
			}
			_ = Cleanup(ds, h.Old, podPtrs(pods))
		}
	})
}

func FuzzRollback(f *testing.F) {
	f.Add([]byte{}, int64(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 1, 4, 0, 2, 2}, int64(1))
	f.Fuzz(func(t *testing.T, data []byte, to int64) {
		in := &fuzzInput{b: data}
		ds := in.daemonSet()
		revisions := in.revisions()
		before := cloneAll(revisions)
		res, err := Rollback(ds, revisions, to)
		if err != nil {
			var fe field.ErrorList
			if !errors.As(err, &fe) {
				t.Fatalf("unexpected error %T: %v", err, err)
			}
			return
		}
		switch res.Outcome {
		case RolledBack:
			if bytes.Equal(res.Template, TemplateData(ds)) {
				t.Fatalf("RolledBack to the current template")
			}
		case Skipped, NotFound, NoPreviousRevision:
			if res.Template != nil {
				t.Fatalf("%v with a template", res.Outcome)
			}
		default:
			t.Fatalf("outcome %v", res.Outcome)
		}
		if res.Message == "" {
			t.Fatalf("no message")
		}
		if _, err := HistoryTable(ds, revisions); err != nil {
			t.Fatalf("HistoryTable() error = %v after Rollback() succeeded", err)
		}
		if diff := cmp.Diff(before, revisions); diff != "" {
			t.Fatalf("Rollback() changed its revisions:\n%s", diff)
		}
	})
}

// FuzzCleanupHistory checks the history cleanup and kubectl's history table
// on revisions and pods decoded from the fuzzer's bytes:
//
//  1. Cleanup deletes, sorted and without repeats, only old revisions it is
//     given, never a live one (one whose hash label some live pod carries),
//     and exactly min(len(old)-limit, the number of dead ones) of them, the
//     oldest dead ones first;
//  2. HistoryTable lists one row per number of the revisions the
//     DaemonSet controls (by a non-empty UID) and selects, in ascending
//     order, and does not depend on the order of its input;
//  3. neither changes its input.
func FuzzCleanupHistory(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{32, 0, 2, 0, 0, 5, 1, 0, 0, 2, 4, 1, 9, 3, 0, 8, 2, 1, 1, 7, 0, 3})
	f.Add([]byte{32 | 16, 1, 3, 3, 200, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{b: data}
		ds := in.daemonSet()
		if in.next()&1 != 0 {
			ds.UID = ""
		}
		pods := in.pods(int(in.next() % 6))
		revisions := in.revisions()
		before, podsBefore := cloneAll(revisions), clonePods(pods)

		// 1. Cleanup of the revisions of ds's namespace that do not hold
		// its template, as Construct's Old would be.
		var old []Revision
		for _, r := range revisions {
			if r.Namespace == ds.Namespace && !bytes.Equal(r.Data, TemplateData(ds)) {
				old = append(old, r)
			}
		}
		// Old never repeats a name: Construct refuses such input.
		old = slicesCompactByName(old)
		got := Cleanup(ds, old, podPtrs(pods))
		limit := api.DefaultRevisionHistoryLimit
		if ds.RevisionHistoryLimit != nil {
			limit = int(*ds.RevisionHistoryLimit)
		}
		live := map[string]bool{}
		for _, p := range pods {
			if h := p.Labels[api.LabelRevisionHash]; h != "" {
				live[h] = true
			}
		}
		var dead []Revision
		for _, r := range old {
			if h, ok := r.Labels[api.LabelRevisionHash]; !ok || !live[h] {
				dead = append(dead, r)
			}
		}
		sort.Slice(dead, func(i, j int) bool {
			if dead[i].Revision != dead[j].Revision {
				return dead[i].Revision < dead[j].Revision
			}
			return dead[i].Name < dead[j].Name
		})
		want := revisionNames(dead[:max(0, min(len(old)-limit, len(dead)))])
		sort.Strings(want)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Cleanup(limit %d, %d old, live %v) mismatch (-want +got):\n%s", limit, len(old), live, diff)
		}

		// 2.
		table, err := HistoryTable(ds, revisions)
		if err != nil {
			return
		}
		numbers := map[int64]bool{}
		for _, r := range revisions {
			if r.Namespace == ds.Namespace && r.Controller != nil && r.Controller.UID != "" && r.Controller.UID == ds.UID &&
				selectorMatches(t, ds, r.Labels) {
				numbers[r.Revision] = true
			}
		}
		rows := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
		if len(numbers) == 0 {
			if table != "No rollout history found." {
				t.Fatalf("no history, table %q", table)
			}
		} else {
			var gotNumbers []int64
			for _, row := range rows[1:] {
				n, err := strconv.ParseInt(strings.Fields(row)[0], 10, 64)
				if err != nil {
					t.Fatalf("row %q: %v", row, err)
				}
				gotNumbers = append(gotNumbers, n)
			}
			var wantNumbers []int64
			for n := range numbers {
				wantNumbers = append(wantNumbers, n)
			}
			sort.Slice(wantNumbers, func(i, j int) bool { return wantNumbers[i] < wantNumbers[j] })
			if diff := cmp.Diff(wantNumbers, gotNumbers); diff != "" {
				t.Fatalf("history rows mismatch (-want +got):\n%s\n%s", diff, table)
			}
		}
		reversed := cloneAll(revisions)
		for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
			reversed[i], reversed[j] = reversed[j], reversed[i]
		}
		if again, _ := HistoryTable(ds, reversed); again != table {
			t.Fatalf("history table depends on input order:\n%s\nvs\n%s", table, again)
		}

		// 3.
		if diff := cmp.Diff(before, revisions); diff != "" {
			t.Fatalf("changed its revisions:\n%s", diff)
		}
		if diff := cmp.Diff(podsBefore, pods); diff != "" {
			t.Fatalf("changed its pods:\n%s", diff)
		}
	})
}

// slicesCompactByName keeps the first revision of each name.
func slicesCompactByName(rs []Revision) []Revision {
	seen := map[string]bool{}
	var out []Revision
	for _, r := range rs {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r)
		}
	}
	return out
}

func selectorMatches(t *testing.T, ds *api.DaemonSet, labels map[string]string) bool {
	s, err := selector.Compile(ds.Selector)
	if err != nil {
		t.Fatalf("HistoryTable accepted a selector that does not compile: %v", err)
	}
	return s.Matches(labels)
}
