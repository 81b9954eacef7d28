package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
)

// FuzzCLI feeds the fuzzer's bytes to the command on standard input and
// renders the plan as a table and as JSON, and explains a node, checking:
//
//  1. the exit status is 0 or 1 (the arguments are valid: never a usage
//     error), with nothing on standard output when it is 1, and never a
//     panic or a stack trace;
//  2. table and JSON agree on success: the JSON parses, every list is
//     present, and the table starts with the DaemonSet line and ends with
//     the rollout message;
//  3. explain prints every node the plan decided, and refuses a node that
//     is not in the input;
//  4. diff, with a label added to the first node, succeeds where plan
//     does, and prints a schema.Diff whose counts add up, nodes sorted.
func FuzzCLI(f *testing.F) {
	cases, err := conformance.SmallestCases(2)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.Cluster, false)
	}
	f.Add([]byte(ds("ds-x")+"---\n"+node1+"---\n"+ownedPod+"---\n"+ownedPod), true)
	f.Add([]byte(ds("ds-x")+"---\n"+ds("ds-y")), false)
	f.Add([]byte(ds("ds-x")+"---\n"+node1), false)
	f.Fuzz(func(t *testing.T, in []byte, strict bool) {
		args := []string{"-f", "-", "--now", "2025-06-01T12:00:00Z"}
		if strict {
			args = append(args, "--strict")
		}
		check := func(r result) {
			t.Helper()
			if r.code != exitOK && r.code != exitError {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if r.code == exitError && r.stdout != "" {
				t.Fatalf("failed but printed %q", r.stdout)
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
				t.Fatalf("stack trace on stderr: %s", r.stderr)
			}
		}
		table := runCLI(t, string(in), append([]string{"plan"}, args...)...)
		check(table)
		js := runCLI(t, string(in), append([]string{"plan", "-o", "json"}, args...)...)
		check(js)
		if table.code != js.code {
			t.Fatalf("table exits %d, json %d", table.code, js.code)
		}
		if js.code != exitOK {
			return
		}
		var p conformance.Plan
		if err := json.Unmarshal([]byte(js.stdout), &p); err != nil {
			t.Fatalf("plan -o json does not parse: %v", err)
		}
		if p.Nodes == nil || p.Create == nil || p.Delete == nil || p.Adopt == nil || p.Release == nil || p.Relabel == nil || p.Errors == nil || p.Warnings == nil {
			t.Fatalf("a list of the JSON plan is missing: %s", js.stdout)
		}
		if !strings.HasPrefix(table.stdout, "NAMESPACE") || !strings.HasSuffix(table.stdout, "\n") ||
			!strings.Contains(table.stdout, strings.TrimRight(p.RolloutStatus.Message, "\n")) {
			t.Fatalf("table:\n%s", table.stdout)
		}
		for i, n := range p.Nodes {
			if i == 2 {
				break
			}
			r := runCLI(t, string(in), append(append([]string{"explain"}, args...), "--", n.Name)...)
			check(r)
			if r.code != exitOK || !strings.Contains(r.stdout, "Node:") {
				t.Fatalf("explain %q: exit %d\n%s%s", n.Name, r.code, r.stdout, r.stderr)
			}
		}
		if r := runCLI(t, string(in), append([]string{"explain", "no such node\x00"}, args...)...); r.code != exitError {
			t.Fatalf("explain of an unknown node: exit %d", r.code)
		}
		if len(p.Nodes) > 0 && !strings.ContainsAny(p.Nodes[0].Name, ":,") && p.Nodes[0].Name != "" {
			checkDiff(t, string(in), args, p.Nodes[0].Name, len(p.Nodes))
		}
	})
}
