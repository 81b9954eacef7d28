package load_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/kube/load"
)

// genObject draws one object from a small pool of names and contents, so
// that copies, conflicting copies and shared UIDs all occur, written as
// kubectl get prints it (doc) or as an item of a typed list (other), or
// the other way round.
func genObject(t *rapid.T) (doc, other string) {
	kind := rapid.SampledFrom([]string{"Node", "Pod", "DaemonSet", "ControllerRevision"}).Draw(t, "kind")
	name := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "name")
	label := rapid.SampledFrom([]string{"x", "y"}).Draw(t, "label")
	ns := rapid.SampledFrom([]string{"", "ns", "default"}).Draw(t, "namespace")
	uid := rapid.SampledFrom([]string{"", kind + name, "shared"}).Draw(t, "uid")
	meta := map[string]any{"name": name, "labels": map[string]string{"l": label}}
	if ns != "" && kind != "Node" {
		meta["namespace"] = ns
	}
	if uid != "" {
		meta["uid"] = uid
	}
	gv := map[string]string{"Node": "v1", "Pod": "v1", "DaemonSet": "apps/v1", "ControllerRevision": "apps/v1"}[kind]
	item, _ := json.Marshal(map[string]any{"metadata": meta})
	typed := fmt.Sprintf(`{"apiVersion":%q,"kind":"%sList","items":[%s]}`, gv, kind, item)
	full, _ := json.Marshal(map[string]any{"metadata": meta, "kind": kind, "apiVersion": gv})
	if rapid.Bool().Draw(t, "typed item") {
		return typed, string(full)
	}
	return string(full), typed
}

// canonical renders what Load found, ignoring where: each object's JSON,
// sorted.
func canonical(t *rapid.T, o *load.Objects) []string {
	var out []string
	add := func(kind string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, kind+" "+string(b))
	}
	for _, x := range o.DaemonSets {
		add("ds", x)
	}
	for _, x := range o.Nodes {
		add("node", x)
	}
	for _, x := range o.Pods {
		add("pod", x)
	}
	for _, x := range o.Revisions {
		add("cr", x)
	}
	slices.Sort(out)
	return out
}

// TestLoadOrderAndCopies: the objects Load finds do not depend on the
// order of the documents, nor on how they are split into sources; and
// giving every document twice changes nothing, positions included.
// Whether the input is refused does not depend on the order either. Nor
// does it on how each object is written: as kubectl get prints it, or as
// an item of a typed list without apiVersion and kind.
func TestLoadOrderAndCopies(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "documents")
		docs, others := make([]string, n), make([]string, n)
		for i := range docs {
			docs[i], others[i] = genObject(t)
		}
		once, err := load.Decode(strings.NewReader(strings.Join(docs, "\n")))
		rewritten, rerr := load.Decode(strings.NewReader(strings.Join(others, "\n")))
		if (err == nil) != (rerr == nil) {
			t.Fatalf("as written: %v; each object written the other way: %v", err, rerr)
		}
		if err == nil {
			if a, b := canonical(t, once), canonical(t, rewritten); !slices.Equal(a, b) {
				t.Fatalf("writing objects the other way changes them:\n%q\n%q", a, b)
			}
		}
		perm := rapid.Permutation(docs).Draw(t, "order")
		var srcs []load.Source
		for i, d := range perm {
			srcs = append(srcs, load.Source{Name: fmt.Sprint(i), R: strings.NewReader(d)})
		}
		permuted, perr := load.Sources(srcs...)
		if (err == nil) != (perr == nil) {
			t.Fatalf("in order: %v; reordered into sources: %v", err, perr)
		}
		twice, terr := load.Decode(strings.NewReader(strings.Join(append(slices.Clone(docs), docs...), "\n")))
		if (err == nil) != (terr == nil) {
			t.Fatalf("once: %v; twice: %v", err, terr)
		}
		if err != nil {
			return
		}
		if a, b := canonical(t, once), canonical(t, permuted); !slices.Equal(a, b) {
			t.Fatalf("reordering changes the objects:\n%q\n%q", a, b)
		}
		if a, b := canonical(t, once), canonical(t, twice); !slices.Equal(a, b) {
			t.Fatalf("copies change the objects:\n%q\n%q", a, b)
		}
		if fmt.Sprint(once.At) != fmt.Sprint(twice.At) {
			t.Fatalf("copies move positions: %v, %v", once.At, twice.At)
		}
	})
}
