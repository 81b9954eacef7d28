package cli

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileCluster is a snapshot whose object-derived strings carry control
// characters (issue 28, finding 11): a node name with a newline and a tab
// that would forge a row "node-x DELETE", a node name, taint key and value
// and a pod name with ESC[2K (erase line) and a carriage return that would
// erase the line above on a terminal, and a hash label value with ESC. The
// pod failed, so the plan deletes it and prints its name. Each
// {{name}} is replaced by hostile or by benign names.
const hostileCluster = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default, uid: u-agent, generation: 2}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers: [{name: c, image: i2}]
---
apiVersion: v1
kind: Node
metadata: {name: "{{forge}}"}
---
apiVersion: v1
kind: Node
metadata: {name: "{{erase}}"}
spec:
  taints: [{key: "{{key}}", value: "{{value}}", effect: NoSchedule}]
---
apiVersion: v1
kind: Node
metadata: {name: node-ok}
---
apiVersion: v1
kind: Pod
metadata:
  name: "{{pod}}"
  namespace: default
  uid: u-p1
  labels: {app: a, controller-revision-hash: "{{hash}}", pod-template-generation: "1"}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u-agent, controller: true}]
spec: {nodeName: node-ok, containers: [{name: c, image: i}]}
status: {phase: Failed}
`

// hostile and benign are the names of hostileCluster, as YAML
// double-quoted strings (\e is ESC, \r CR, \x85 NEL, a C1 control).
var (
	hostile = map[string]string{"forge": `evil\nnode-x\tDELETE`, "erase": `\e[2Kn`, "key": `k\e[2K`, "value": `v\r`,
		"pod": `agent-\rold\x85`, "hash": `old\e[2K`}
	benign = map[string]string{"forge": "evil-node-x-delete", "erase": "e-2kn", "key": "k-2k", "value": "v",
		"pod": "agent-old", "hash": "old-2k"}
)

func cluster(names map[string]string) string {
	s := hostileCluster
	for k, v := range names {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}

// TestHostileNames runs every text output over hostileCluster: the output
// has the lines it has with benign names (a name forges no row and ends
// no cell), and every rune of it is printable (no ESC, no CR, no C1
// control reaches the terminal).
func TestHostileNames(t *testing.T) {
	forge, erase := "evil\nnode-x\tDELETE", "\x1b[2Kn"
	tests := []struct {
		name string
		// args run over the hostile cluster; benign over the benign one
		// (the same, unless a node is named).
		args, benign []string
		// want is what the output must hold: the names, escaped.
		want []string
	}{
		{name: "plan", args: []string{"plan"},
			want: []string{`"evil\nnode-x\tDELETE"   `, `"agent-\rold\u0085"   node-ok   Failed`}},
		{name: "plan -o wide", args: []string{"plan", "-o", "wide"},
			want: []string{`"\x1b[2Kn"`, `"UntoleratedNoSchedule(k\x1b[2K=v\r:NoSchedule)"`, `"agent-\rold\u0085=delete(Failed)"`}},
		{name: "plan -o name", args: []string{"plan", "-o", "name"},
			want: []string{`pod/"agent-\rold\u0085"` + "\n"}},
		{name: "explain forged", args: []string{"explain", forge}, benign: []string{"explain", benign["forge"]},
			want: []string{`Node:                   "evil\nnode-x\tDELETE"` + "\n"}},
		{name: "explain erase", args: []string{"explain", erase}, benign: []string{"explain", benign["erase"]},
			want: []string{`Node:                   "\x1b[2Kn"` + "\n", `"1. taint k\x1b[2K=v\r:NoSchedule is not tolerated: no new pod"`}},
		{name: "explain pod", args: []string{"explain", "node-ok"},
			want: []string{`"agent-\rold\u0085: deleted: it failed;`}},
		{name: "diff", args: []string{"diff", "--remove-node", "node-ok"},
			// The hostile node gets a pod with or without the edit: a
			// PENDING row.
			want: []string{`Gains     "evil\nnode-x\tDELETE"   node should run the daemon pod`}},
		{name: "simulate", args: []string{"simulate"}},
		{name: "overhead", args: []string{"overhead"}, want: []string{`"\x1b[2Kn"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flags := []string{"-f", "-", "--now", "2026-01-01T00:00:00Z"}
			if tt.name == "overhead" {
				flags = flags[:2]
			}
			got := runCLI(t, cluster(hostile), append(tt.args, flags...)...)
			benignArgs := tt.args
			if tt.benign != nil {
				benignArgs = tt.benign
			}
			base := runCLI(t, cluster(benign), append(benignArgs, flags...)...)
			if got.code != exitOK || base.code != exitOK {
				t.Fatalf("exit %d (benign %d), stderr %q (benign %q); want 0", got.code, base.code, got.stderr, base.stderr)
			}
			if g, b := strings.Count(got.stdout, "\n"), strings.Count(base.stdout, "\n"); g != b {
				t.Errorf("%d lines, %d with benign names: a name forged or ended a line; got:\n%s\nbenign:\n%s", g, b, got.stdout, base.stdout)
			}
			for i, line := range strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n") {
				if !utf8.ValidString(line) {
					t.Errorf("line %d is not UTF-8: %q", i+1, line)
				}
				for _, r := range line {
					if !printableRune(r) {
						t.Errorf("line %d has the unprintable %U: %q", i+1, r, line)
						break
					}
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(got.stdout, w) {
					t.Errorf("output lacks %q; got:\n%s", w, got.stdout)
				}
			}
		})
	}
}

// printableRune is strconv.IsPrint: letters, marks, numbers, punctuation,
// symbols and the ASCII space; no control or format character, no other
// space.
func printableRune(r rune) bool { return strconv.IsPrint(r) }

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want, why string }{
		{"node-1", "node-1", "printable: unchanged"},
		{"", "", "empty: unchanged"},
		{"a b/c=d:e,f(ü)—", "a b/c=d:e,f(ü)—", "spaces, punctuation and printable non-ASCII: unchanged"},
		{"evil\nnode-x\tDELETE", `"evil\nnode-x\tDELETE"`, "newline and tab: quoted"},
		{"\x1b[2Kn", `"\x1b[2Kn"`, "ESC: quoted"},
		{"a\rb", `"a\rb"`, "CR: quoted"},
		{"x\u202ey", `"x\u202ey"`, "right-to-left override (format character): quoted"},
		{"x\u00a0y", `"x\u00a0y"`, "no-break space: quoted"},
		{"x\xffy", `"x\xffy"`, "invalid UTF-8 (0xff is also tabwriter's escape): quoted"},
		{`"quoted"`, `"\"quoted\""`, "a leading double quote: quoted, so that a cell that begins with one is always a Go string"},
		{`a"b\c`, `a"b\c`, "quote and backslash inside a printable name: unchanged"},
	}
	for _, tt := range tests {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q) = %s, want %s (%s)", tt.in, got, tt.want, tt.why)
		}
	}
}

// TestHostileNamesStderr: messages on standard error name the object as
// they are, with every unprintable rune escaped in place.
func TestHostileNamesStderr(t *testing.T) {
	got := runCLI(t, cluster(hostile), "explain", "nope\x1b[2K\u202e", "-f", "-", "--now", "2026-01-01T00:00:00Z")
	if got.code == exitOK {
		t.Fatalf("exit 0; want a failure for a node not in the input")
	}
	// The hostile node's taint is also a validation finding (its key and
	// value are not what the API server accepts), printed escaped too.
	if !strings.HasSuffix(got.stderr, "\n"+`daemonplan: explain: node "nope\x1b[2K\u202e" is not in the input (3 nodes)`+"\n") ||
		strings.ContainsAny(got.stderr, "\x1b\r\u202e") {
		t.Errorf("stderr %q", got.stderr)
	}
	for _, tt := range []struct{ in, want string }{
		{"a\nb\tc\r d", "a b c d"},
		{"node \x1b[2Kn: gone", `node \x1b[2Kn: gone`},
		{"x\u202ey\xff\u0085", `x\u202ey\xff`},
		{`label "k\x1b"`, `label "k\x1b"`},
	} {
		if got := oneLine(tt.in); got != tt.want {
			t.Errorf("oneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
