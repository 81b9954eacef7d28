package revision

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		ds.Selector = &selector.LabelSelector{}
	case 3:
		ds.Selector = &selector.LabelSelector{MatchExpressions: []selector.LabelSelectorRequirement{
			{Key: "app", Operator: selector.In, Values: []string{"agent", "x"}},
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
			for _, names := range [][]string{h.Delete, h.Adopt, h.Release, revisionNames(h.Old), revisionNames(h.Update)} {
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
