package load_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/kube/load"
)

// aliased is a YAML document of an ignored kind whose list l repeats the
// anchored string s (of n bytes) times times, with aliases.
func aliased(n, times int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\ndata:\n  s: &s " + strings.Repeat("x", n) + "\nl: [")
	for i := range times {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("*s")
	}
	b.WriteString("]\n")
	return b.String()
}

// laughs is the nested form: level i is a list of ten aliases of level
// i-1, so that levels levels expand one short string 10^levels times.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nl0: &l0 lol\n")
	for i := 1; i <= levels; i++ {
		b.WriteString("l" + strconv.Itoa(i) + ": &l" + strconv.Itoa(i) + " [" + strings.TrimSuffix(strings.Repeat("*l"+strconv.Itoa(i-1)+", ", 10), ", ") + "]\n")
	}
	return b.String()
}

// TestAliasExpansionBounded: what YAML aliases add to a document is
// bounded in bytes (MaxAliasExpansion), checked before the document is
// decoded, so that a small file cannot make the loader build gigabytes;
// the error names the document and the limit. Each alias of a scalar of
// n bytes adds n+1.
func TestAliasExpansionBounded(t *testing.T) {
	half := load.MaxAliasExpansion/2 - 1
	tests := []struct {
		name   string
		reason string
		in     string
		want   error // nil: read
	}{
		{
			name:   "one long string aliased 3,000 times",
			reason: "the issue's 135 KB file: 300 MB once expanded, which took 12 s and 1.2 GB before the kind was found to be ignored",
			in:     "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n---\n" + aliased(100_000, 3000),
			want:   load.ErrAliasExpansion,
		},
		{
			name:   "nested aliases",
			reason: "ten levels of ten aliases each: 10^10 strings from 300 bytes; each level is measured once, not expanded",
			in:     laughs(9),
			want:   load.ErrAliasExpansion,
		},
		{
			name:   "at the limit",
			reason: "two aliases of a scalar of MaxAliasExpansion/2-1 bytes add exactly MaxAliasExpansion",
			in:     aliased(half, 2),
		},
		{
			name:   "one byte beyond the limit",
			reason: "the same scalar one byte longer adds MaxAliasExpansion+2",
			in:     aliased(half+1, 2),
			want:   load.ErrAliasExpansion,
		},
		{
			name:   "modest aliases",
			reason: "a toleration list and a container anchored and reused, as people write manifests, are read",
			in: `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: ns}
spec:
  selector: {matchLabels: &labels {app: agent}}
  template:
    metadata: {labels: *labels}
    spec:
      tolerations: &all [{operator: Exists}]
      initContainers: [&c {name: init, image: "agent:1"}]
      containers:
      - <<: *c
        name: agent
`,
		},
		{
			name:   "a value that holds an alias to itself",
			reason: "no decoder can expand it: an error, never a loop",
			in:     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nl: &l [a, *l]\n",
			want:   errAny,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := load.Load(load.Options{}, load.Source{Name: "a.yaml", R: strings.NewReader(tt.in)})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Load: %v (%s)", err, tt.reason)
				}
				return
			}
			var de *load.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Load = %d DaemonSets, error %v; want a *load.DecodeError (%s)", len(objs.DaemonSets), err, tt.reason)
			}
			if tt.want != errAny && !errors.Is(err, tt.want) {
				t.Fatalf("Load: %v; want %v (%s)", err, tt.want, tt.reason)
			}
			if de.At.Source != "a.yaml" || de.At.Doc < 1 {
				t.Fatalf("the error %v names no document", err)
			}
			if tt.want == load.ErrAliasExpansion && !strings.Contains(err.Error(), "4194304") {
				t.Fatalf("the error %v does not name the limit", err)
			}
		})
	}
}

// errAny is any *load.DecodeError.
var errAny = errors.New("any decode error")

// TestDeepNestingBounded: a value nested deeper than the JSON decoders
// read is an error, found without walking it all (the rewrite that keeps
// a repeated key's last value stops at the decoders' depth too).
func TestDeepNestingBounded(t *testing.T) {
	tests := []struct{ name, reason, in string }{
		{"deep array in spec", "the typed decoder refuses it; nothing recurses a million levels",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","name":"q"},"spec":` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `}`},
		{"deep object in an OpenKruise DaemonSet", "the same for a map",
			`{"apiVersion":"apps.kruise.io/v1beta1","kind":"DaemonSet","metadata":{"name":"d"},"metadata":{"name":"d"},"spec":` + strings.Repeat(`{"a":`, 1_000_000) + "1" + strings.Repeat("}", 1_000_000) + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load.Load(load.Options{}, load.Source{Name: "a.json", R: strings.NewReader(tt.in)})
			var de *load.DecodeError
			if !errors.As(err, &de) || de.At.Doc != 1 {
				t.Fatalf("Load: %v; want a *load.DecodeError at JSON value 1 (%s)", err, tt.reason)
			}
		})
	}
}
