package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Compare reports every way the plan got (JSON in the plan schema) departs
// from the expected.json expected under the rules of the package
// documentation. No differences means got conforms. Unparsable input is
// reported as a difference, never a panic.
func Compare(expected, got []byte) []string {
	var want Expected
	if err := json.Unmarshal(expected, &want); err != nil {
		return []string{fmt.Sprintf("expected: not a plan: %v", err)}
	}
	var plan Plan
	if err := json.Unmarshal(got, &plan); err != nil {
		return []string{fmt.Sprintf("got: not a plan: %v", err)}
	}
	diffs := checkSchema(got)
	diffs = append(diffs, ComparePlans(&want, &plan)...)
	return diffs
}

// ComparePlans is Compare on decoded plans. It does not check the schema
// rules that only the JSON shows (rule 7: lists present and not null).
func ComparePlans(want *Expected, got *Plan) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }

	diffs = append(diffs, checkSorted(got)...)
	diffs = append(diffs, compareNodes(want.Nodes, got.Nodes)...)
	if want.IsDeterministic() {
		diffs = append(diffs, compareExactSet("create", createKeys(want.Create), createKeys(got.Create))...)
		diffs = append(diffs, compareExactSet("delete", deleteKeys(want.Delete), deleteKeys(got.Delete))...)
	} else {
		createOutcomes := [][]string{createKeys(want.Create)}
		deleteOutcomes := [][]string{deleteKeys(want.Delete)}
		for _, alt := range want.Alternatives {
			createOutcomes = append(createOutcomes, createKeys(alt.Create))
			deleteOutcomes = append(deleteOutcomes, deleteKeys(alt.Delete))
		}
		diffs = append(diffs, compareOutcomes("create", createOutcomes, createKeys(got.Create))...)
		diffs = append(diffs, compareOutcomes("delete", deleteOutcomes, deleteKeys(got.Delete))...)
	}

	exact := []struct {
		name      string
		want, got any
	}{
		{"daemonSet", want.DaemonSet, got.DaemonSet},
		{"adopt", want.Adopt, got.Adopt},
		{"release", want.Release, got.Release},
		{"relabel", want.Relabel, got.Relabel},
		{"revisions", want.Revisions, got.Revisions},
		{"status", want.Status, got.Status},
		{"rolloutStatus", want.RolloutStatus, got.RolloutStatus},
	}
	for _, e := range exact {
		if d := cmp.Diff(e.want, e.got, cmpopts.EquateEmpty()); d != "" {
			add("%s mismatch (-want +got):\n%s", e.name, d)
		}
	}

	switch {
	case len(want.Errors) > 0 && len(got.Errors) == 0:
		add("errors: got none, want an error like %q", want.Errors[0])
	case len(want.Errors) == 0 && len(got.Errors) > 0:
		add("errors: got %q, want none", got.Errors)
	}
	return diffs
}

// compareNodes applies rule 1.
func compareNodes(want, got []Node) []string {
	var diffs []string
	gotByName := make(map[string]Node, len(got))
	for _, n := range got {
		if _, dup := gotByName[n.Name]; dup {
			diffs = append(diffs, fmt.Sprintf("nodes: %s listed twice", n.Name))
		}
		gotByName[n.Name] = n
	}
	wantNames := make(map[string]bool, len(want))
	for _, w := range want {
		wantNames[w.Name] = true
		g, ok := gotByName[w.Name]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("nodes: %s missing", w.Name))
		case g.ShouldRun != w.ShouldRun || g.ShouldContinueRunning != w.ShouldContinueRunning:
			diffs = append(diffs, fmt.Sprintf("nodes: %s: got shouldRun=%t shouldContinueRunning=%t, want %t %t",
				w.Name, g.ShouldRun, g.ShouldContinueRunning, w.ShouldRun, w.ShouldContinueRunning))
		}
	}
	for _, g := range got {
		if !wantNames[g.Name] {
			diffs = append(diffs, fmt.Sprintf("nodes: unexpected node %s", g.Name))
		}
	}
	return diffs
}

// createKeys renders each create entry by what rule 2 compares: node,
// labels (sorted by encoding/json) and tolerations in order.
func createKeys(cs []Create) []string {
	keys := make([]string, len(cs))
	for i, c := range cs {
		b, err := json.Marshal(Create{Node: c.Node, Labels: c.Labels, Tolerations: c.Tolerations})
		if err != nil {
			panic("conformance: marshal create: " + err.Error()) // unreachable: plain strings and ints
		}
		keys[i] = string(b)
	}
	return keys
}

// deleteKeys renders each delete entry by its pod, all rule 2 compares.
func deleteKeys(ds []Delete) []string {
	keys := make([]string, len(ds))
	for i, d := range ds {
		keys[i] = d.Pod
	}
	return keys
}

// compareExactSet compares two multisets of keys.
func compareExactSet(list string, want, got []string) []string {
	var diffs []string
	count := make(map[string]int, len(want))
	for _, k := range want {
		count[k]++
	}
	for _, k := range got {
		count[k]--
	}
	keys := sortedKeys(count)
	for _, k := range keys {
		if count[k] > 0 {
			diffs = append(diffs, fmt.Sprintf("%s: missing %s", list, k))
		}
	}
	for _, k := range keys {
		if count[k] < 0 {
			diffs = append(diffs, fmt.Sprintf("%s: unexpected %s", list, k))
		}
	}
	return diffs
}

// compareOutcomes applies rule 3; outcomes[0] is expected.json's own.
func compareOutcomes(list string, outcomes [][]string, got []string) []string {
	var diffs []string
	if len(got) != len(outcomes[0]) {
		diffs = append(diffs, fmt.Sprintf("%s: %d entries, want %d", list, len(got), len(outcomes[0])))
	}
	union := make(map[string]bool)
	inAll := make(map[string]int)
	for _, o := range outcomes {
		seen := make(map[string]bool, len(o))
		for _, k := range o {
			union[k] = true
			if !seen[k] {
				seen[k] = true
				inAll[k]++
			}
		}
	}
	gotSet := make(map[string]bool, len(got))
	for _, k := range got {
		if gotSet[k] {
			diffs = append(diffs, fmt.Sprintf("%s: listed twice: %s", list, k))
		}
		gotSet[k] = true
		if !union[k] {
			diffs = append(diffs, fmt.Sprintf("%s: upstream never chose %s", list, k))
		}
	}
	for _, k := range sortedKeys(inAll) {
		if inAll[k] == len(outcomes) && !gotSet[k] {
			diffs = append(diffs, fmt.Sprintf("%s: missing %s, which upstream chose in every outcome", list, k))
		}
	}
	return diffs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkSorted applies the ordering half of rule 7.
func checkSorted(p *Plan) []string {
	var diffs []string
	check := func(list string, n int, key func(int) string) {
		for i := 1; i < n; i++ {
			if key(i-1) > key(i) {
				diffs = append(diffs, fmt.Sprintf("%s: not sorted: %q before %q", list, key(i-1), key(i)))
				return
			}
		}
	}
	check("nodes", len(p.Nodes), func(i int) string { return p.Nodes[i].Name })
	check("create", len(p.Create), func(i int) string { return p.Create[i].Node })
	check("delete", len(p.Delete), func(i int) string { return p.Delete[i].Pod })
	check("adopt", len(p.Adopt), func(i int) string { return p.Adopt[i] })
	check("release", len(p.Release), func(i int) string { return p.Release[i] })
	check("relabel", len(p.Relabel), func(i int) string { return p.Relabel[i].Pod })
	return diffs
}

// checkSchema applies the presence half of rule 7 to the raw JSON: every
// list is present and not null. Warnings are not required, since
// expected.json files leave them out.
func checkSchema(got []byte) []string {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(got, &top); err != nil {
		return []string{fmt.Sprintf("got: not a JSON object: %v", err)}
	}
	var diffs []string
	require := func(where string, m map[string]json.RawMessage, key string, list bool) {
		raw, ok := m[key]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("schema: %s%s missing", where, key))
		case list && bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
			diffs = append(diffs, fmt.Sprintf("schema: %s%s is null, want []", where, key))
		}
	}
	for _, key := range []string{"daemonSet", "revisions", "status", "rolloutStatus"} {
		require("", top, key, false)
	}
	for _, key := range []string{"nodes", "create", "delete", "adopt", "release", "relabel", "errors"} {
		require("", top, key, true)
	}
	var revisions map[string]json.RawMessage
	if raw, ok := top["revisions"]; ok && json.Unmarshal(raw, &revisions) == nil && revisions != nil {
		for _, key := range []string{"create", "update", "delete", "adopt"} {
			require("revisions.", revisions, key, true)
		}
	}
	return diffs
}
