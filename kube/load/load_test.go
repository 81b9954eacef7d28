package load_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/kube/load"
)

const ds = `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"ns"}}`
const node = `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}`
const pod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","namespace":"ns"}}`
const cr = `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"agent-1","namespace":"ns"},"revision":1}`

// summary is what a decode found, by name.
type summary struct {
	DaemonSets, Nodes, Pods, Revisions, Ignored []string
}

func summarize(o *load.Objects) summary {
	var s summary
	for _, x := range o.DaemonSets {
		s.DaemonSets = append(s.DaemonSets, x.Namespace+"/"+x.Name)
	}
	for _, x := range o.Nodes {
		s.Nodes = append(s.Nodes, x.Name)
	}
	for _, x := range o.Pods {
		s.Pods = append(s.Pods, x.Namespace+"/"+x.Name)
	}
	for _, x := range o.Revisions {
		s.Revisions = append(s.Revisions, x.Name)
	}
	s.Ignored = o.Ignored
	return s
}

func TestDecode(t *testing.T) {
	all := summary{DaemonSets: []string{"ns/agent"}, Nodes: []string{"n1"}, Pods: []string{"ns/p1"}, Revisions: []string{"agent-1"}}
	tests := []struct {
		name   string
		reason string
		in     string
		want   summary
	}{
		{
			name:   "JSON List",
			reason: "what kubectl get a,b,c -o json prints",
			in:     `{"apiVersion":"v1","kind":"List","items":[` + ds + "," + node + "," + pod + "," + cr + `]}`,
			want:   all,
		},
		{
			name:   "JSON single object",
			reason: "what kubectl get ds/x -o json prints",
			in:     "\n  " + ds,
			want:   summary{DaemonSets: []string{"ns/agent"}},
		},
		{
			name:   "JSON stream",
			reason: "concatenated objects, as from several kubectl runs",
			in:     ds + "\n" + node + pod + "\n" + cr,
			want:   all,
		},
		{
			name:   "JSON array",
			reason: "a bare array of objects",
			in:     `[` + ds + "," + node + `]`,
			want:   summary{DaemonSets: []string{"ns/agent"}, Nodes: []string{"n1"}},
		},
		{
			name:   "typed list without item kinds",
			reason: "the API server's NodeList omits apiVersion and kind on items",
			in:     `{"apiVersion":"v1","kind":"NodeList","metadata":{},"items":[{"metadata":{"name":"n1"}},{"metadata":{"name":"n2"}}]}`,
			want:   summary{Nodes: []string{"n1", "n2"}},
		},
		{
			name:   "nested List",
			reason: "a List of Lists is flattened",
			in:     `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"List","items":[` + node + `]},` + pod + `]}`,
			want:   summary{Nodes: []string{"n1"}, Pods: []string{"ns/p1"}},
		},
		{
			name:   "unknown kinds",
			reason: "other kinds are ignored and named",
			in:     `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"ns"}},{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}]}`,
			want:   summary{Ignored: []string{"v1 Service ns/s", "apps/v1 Deployment d"}},
		},
		{
			name:   "YAML stream",
			reason: "multi-document YAML with comments and empty documents",
			in: `# comment
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: ns}
---
---
apiVersion: v1
kind: Node
metadata:
  name: n1
---
`,
			want: summary{DaemonSets: []string{"ns/agent"}, Nodes: []string{"n1"}},
		},
		{
			name:   "YAML List",
			reason: "what kubectl get a,b -o yaml prints",
			in: `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: p1, namespace: ns}
- apiVersion: apps/v1
  kind: ControllerRevision
  metadata: {name: agent-1, namespace: ns}
  revision: 1
metadata:
  resourceVersion: ""
`,
			want: summary{Pods: []string{"ns/p1"}, Revisions: []string{"agent-1"}},
		},
		{
			name:   "empty input",
			reason: "nothing is no objects, not an error",
			in:     " \n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := load.Decode(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("%s: Decode: %v", tt.reason, err)
			}
			if d := cmp.Diff(tt.want, summarize(got)); d != "" {
				t.Errorf("%s: Decode() mismatch (-want +got):\n%s", tt.reason, d)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     string
		want   string // substring of the error
	}{
		{"malformed JSON", "truncated input", `{"apiVersion":"v1","kind":"List","items":[`, "load: JSON value 1"},
		{"malformed YAML", "a tab-indented mapping", "apiVersion: v1\nkind: Node\nmetadata:\n\tname: x\n", "load: YAML document 1"},
		{"no kind", "an object must say what it is", `{"apiVersion":"v1","metadata":{"name":"x"}}`, "without apiVersion or kind"},
		{"not an object", "a list item must be an object", `{"apiVersion":"v1","kind":"List","items":["x"]}`, "items[0]: not an object"},
		{"old DaemonSet version", "apps/v1beta2 is not served by v1.34", `{"apiVersion":"apps/v1beta2","kind":"DaemonSet","metadata":{"name":"x"}}`, "unsupported apiVersion, want apps/v1"},
		{"extensions DaemonSet", "extensions/v1beta1 is not served by v1.34", `{"apiVersion":"extensions/v1beta1","kind":"DaemonSet","metadata":{"name":"x"}}`, "unsupported apiVersion"},
		{"wrong field type", "a typed field of the wrong JSON type", `{"apiVersion":"v1","kind":"List","items":[` + node + `,{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"x"},"spec":{"minReadySeconds":"5"}}]}`, `JSON value 1, items[1] (apps/v1 DaemonSet x)`},
		{"deep nesting", "lists nested without end are refused", strings.Repeat("[", 20) + strings.Repeat("]", 20), "nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load.Decode(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: Decode() error = %v, want one containing %q", tt.reason, err, tt.want)
			}
		})
	}
}

func TestCluster(t *testing.T) {
	two := `{"apiVersion":"v1","kind":"List","items":[` + ds + `,{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"other","namespace":"ns2"}},` + node + `]}`
	tests := []struct {
		name            string
		reason          string
		in              string
		namespace, dsNm string
		want            string // namespace/name of the DaemonSet picked
		wantErr         error
	}{
		{name: "only", reason: "the only DaemonSet is picked", in: ds + node, want: "ns/agent"},
		{name: "none", reason: "input without a DaemonSet", in: node, wantErr: load.ErrNoDaemonSet},
		{name: "two", reason: "two DaemonSets and none named", in: two, wantErr: load.ErrManyDaemonSets},
		{name: "named", reason: "a name picks among several", in: two, dsNm: "other", want: "ns2/other"},
		{name: "named in namespace", reason: "namespace and name", in: two, namespace: "ns", dsNm: "agent", want: "ns/agent"},
		{name: "named missing", reason: "the named DaemonSet is absent", in: two, namespace: "ns2", dsNm: "agent", wantErr: load.ErrNoDaemonSet},
		{name: "namespace only", reason: "a namespace alone picks the only DaemonSet in it", in: two, namespace: "ns2", want: "ns2/other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := load.Decode(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			c, err := objs.Cluster(tt.namespace, tt.dsNm)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("%s: Cluster() error = %v, want %v", tt.reason, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: Cluster: %v", tt.reason, err)
			}
			if got := c.DaemonSet.Namespace + "/" + c.DaemonSet.Name; got != tt.want {
				t.Errorf("%s: Cluster() picked %s, want %s", tt.reason, got, tt.want)
			}
			if len(c.Nodes) != len(objs.Nodes) {
				t.Errorf("%s: Cluster() has %d nodes, want %d", tt.reason, len(c.Nodes), len(objs.Nodes))
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	if _, err := load.Read(strings.NewReader(node)); !errors.Is(err, load.ErrNoDaemonSet) {
		t.Errorf("Read(node) error = %v, want ErrNoDaemonSet", err)
	}
	if _, err := load.Read(strings.NewReader("{")); err == nil {
		t.Error("Read(garbage) succeeded")
	}
}

// TestDecodeLikeAPIServer checks that field names are case-sensitive and
// values exact, as the API server decodes them.
func TestDecodeLikeAPIServer(t *testing.T) {
	in := `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"x"},
	"spec":{"MinReadySeconds":7,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m","memory":"1.5Gi"}}}]}}}}`
	c, err := load.Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.DaemonSet.Spec.MinReadySeconds; got != 0 {
		t.Errorf("MinReadySeconds = %d from a miscased key, want 0 (dropped)", got)
	}
	req := c.DaemonSet.Spec.Template.Spec.Containers[0].Resources.Requests
	got := map[string]string{"cpu": req.Cpu().String(), "memory": req.Memory().String()}
	if d := cmp.Diff(map[string]string{"cpu": "100m", "memory": "1536Mi"}, got); d != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", d)
	}
}

func TestConformanceClusters(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "testdata", "conformance", "cases", "*", "cluster.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range dirs {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := load.Read(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if len(c.Ignored) != 0 || len(c.Nodes) == 0 {
			t.Errorf("%s: %d nodes, ignored %q", path, len(c.Nodes), c.Ignored)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(`{"apiVersion":"v1","kind":"List","items":[` + ds + "," + node + "," + pod + "," + cr + `]}`)
	f.Add("apiVersion: v1\nkind: List\nitems:\n- " + node + "\n---\n" + pod)
	f.Add(`[[{"kind":"NodeList","apiVersion":"v1","items":[{}]}]]`)
	f.Add("--- \n: x\n")
	f.Fuzz(func(t *testing.T, in string) {
		objs, err := load.Decode(strings.NewReader(in))
		if err == nil && objs == nil {
			t.Fatal("Decode returned neither objects nor an error")
		}
	})
}

const yamlPod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: ns}\n"

// TestSourcesMerge: an object found several times is one object when its
// copies are identical, and an error naming both places when they differ
// (issue 15, item 1). Before, every copy was kept and the planner deleted
// the node's only pod as a duplicate of itself.
func TestSourcesMerge(t *testing.T) {
	podV2 := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","namespace":"ns","labels":{"v":"2"}}}`
	nodeUID := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","uid":"u1"}}`
	otherUID := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n2","uid":"u1"}}`
	list := func(items ...string) string {
		return `{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",") + `]}`
	}
	tests := []struct {
		name, reason string
		srcs         []load.Source
		want         summary
		wantAt       []string // positions of the pods
		wantErr      string   // substring; wrapped ErrConflict
	}{{
		name:   "same pod in two files",
		reason: "kubectl get -f a -f b with overlapping files",
		srcs: []load.Source{
			{Name: "a.json", R: strings.NewReader(list(ds, pod))},
			{Name: "b.json", R: strings.NewReader(list(pod, node))},
		},
		want:   summary{DaemonSets: []string{"ns/agent"}, Nodes: []string{"n1"}, Pods: []string{"ns/p1"}},
		wantAt: []string{"a.json: JSON value 1, items[1]"},
	}, {
		name:   "repeated YAML document",
		reason: "the same document pasted twice",
		srcs:   []load.Source{{Name: "a.yaml", R: strings.NewReader("kind: Node\napiVersion: v1\nmetadata: {name: n1}\n---\n" + yamlPod + "---\n" + yamlPod)}},
		want:   summary{Nodes: []string{"n1"}, Pods: []string{"ns/p1"}},
		wantAt: []string{"a.yaml: YAML document 2"},
	}, {
		name:   "same DaemonSet twice",
		reason: "identical copies of the DaemonSet are one DaemonSet, not two to choose from",
		srcs:   []load.Source{{R: strings.NewReader(ds + ds)}},
		want:   summary{DaemonSets: []string{"ns/agent"}},
	}, {
		name:    "pod differs",
		reason:  "two versions of one pod: which one is true is unknown",
		srcs:    []load.Source{{Name: "a.json", R: strings.NewReader(pod)}, {Name: "b.json", R: strings.NewReader(list(node, podV2))}},
		wantErr: "load: b.json: JSON value 1, items[1] (v1 Pod ns/p1): the same object appears twice with different content: differs from its copy at a.json: JSON value 1",
	}, {
		name:    "node differs",
		reason:  "duplicate node names are an input error naming both copies",
		srcs:    []load.Source{{R: strings.NewReader(list(node, nodeUID))}},
		wantErr: "load: JSON value 1, items[1] (v1 Node n1): the same object appears twice with different content: differs from its copy at JSON value 1, items[0]",
	}, {
		name:    "revision differs",
		reason:  "duplicate revision names name the input's items",
		srcs:    []load.Source{{R: strings.NewReader(list(cr, strings.Replace(cr, `"revision":1`, `"revision":2`, 1)))}},
		wantErr: "JSON value 1, items[1] (apps/v1 ControllerRevision ns/agent-1): the same object appears twice with different content: differs from its copy at JSON value 1, items[0]",
	}, {
		name:    "UID shared",
		reason:  "two names for one UID is one object seen twice",
		srcs:    []load.Source{{R: strings.NewReader(nodeUID + otherUID)}},
		wantErr: `load: JSON value 2 (v1 Node n2): the same object appears twice with different content: has the UID "u1" of v1 Node n1 at JSON value 1`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := load.Sources(tt.srcs...)
			if tt.wantErr != "" {
				if !errors.Is(err, load.ErrConflict) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("%s: Sources() error = %v, want ErrConflict with %q", tt.reason, err, tt.wantErr)
				}
				var le *load.Error
				if !errors.As(err, &le) || le.At.Doc == 0 {
					t.Errorf("%s: error %v is not a *load.Error with a position", tt.reason, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: Sources: %v", tt.reason, err)
			}
			if d := cmp.Diff(tt.want, summarize(got)); d != "" {
				t.Errorf("%s: Sources() mismatch (-want +got):\n%s", tt.reason, d)
			}
			if tt.wantAt != nil {
				var at []string
				for _, p := range got.At.Pods {
					at = append(at, p.String())
				}
				if d := cmp.Diff(tt.wantAt, at); d != "" {
					t.Errorf("%s: pod positions mismatch (-want +got):\n%s", tt.reason, d)
				}
			}
		})
	}
}

// TestConcatenatedLists: two kubectl outputs concatenated without "---"
// are one YAML document whose keys repeat; the first List's items were
// silently dropped. Now it is an error naming the document.
func TestConcatenatedLists(t *testing.T) {
	a := "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: a}}\n"
	b := "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: b}}\n"
	_, err := load.Sources(load.Source{Name: "both.yaml", R: strings.NewReader(a + b)})
	if err == nil || !strings.Contains(err.Error(), "load: both.yaml: YAML document 1: ") || !strings.Contains(err.Error(), "already set in map") {
		t.Errorf("Sources(two Lists in one document) error = %v, want a repeated-key error naming both.yaml, YAML document 1", err)
	}
	got, err := load.Sources(load.Source{Name: "both.yaml", R: strings.NewReader(a + "---\n" + b)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(summary{Nodes: []string{"a", "b"}}, summarize(got)); d != "" {
		t.Errorf("two Lists as two documents (-want +got):\n%s", d)
	}
}

// TestInvalidUTF8: names that differ only in invalid bytes decoded to the
// same name (U+FFFD), so a pod on one node counted as running on another.
// Invalid UTF-8 is refused with its position (issue 15, item 4).
func TestInvalidUTF8(t *testing.T) {
	tests := []struct {
		name, reason, in, want string
	}{
		{"JSON raw byte", "an invalid byte in a JSON string", `{"apiVersion":"v1","kind":"List","items":[` + node + `,{"apiVersion":"v1","kind":"Node","metadata":{"name":"n` + "\xfe" + `"}}]}`,
			"load: in.json: JSON value 1, items[1] (v1 Node n\uFFFD): invalid UTF-8 at byte 54 of the object"},
		{"JSON escaped surrogate", "a lone surrogate escape decodes to U+FFFD", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n\udcfe"}}`,
			"load: in.json: JSON value 1 (v1 Node n\uFFFD): invalid UTF-8: metadata.name \"n\uFFFD\" holds U+FFFD"},
		{"YAML raw byte", "the line is named", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\xff\n",
			"load: in.json: YAML document 1: invalid UTF-8 at line 4 of the document"},
		{"label value", "anywhere in a planned object", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"` + "\xc3" + `"}}}`,
			"load: in.json: JSON value 1 (v1 Pod p): invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load.Sources(load.Source{Name: "in.json", R: strings.NewReader(tt.in)})
			if !errors.Is(err, load.ErrInvalidUTF8) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: Sources() error = %v, want ErrInvalidUTF8 with %q", tt.reason, err, tt.want)
			}
		})
	}
	// Other kinds are not decoded, and not checked.
	if _, err := load.Decode(strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c` + "\xfe" + `"}}`)); err != nil {
		t.Errorf("an ignored kind with invalid UTF-8: %v", err)
	}
}

// TestPositions: every object's position names the source, the document
// and the List items that hold it (issue 15, item 3).
func TestPositions(t *testing.T) {
	yml := "apiVersion: v1\nkind: Node\nmetadata: {name: n0}\n---\n" +
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: Node, metadata: {name: n1}}]}\n"
	got, err := load.Sources(
		load.Source{Name: "a.yaml", R: strings.NewReader(yml)},
		load.Source{Name: "b.json", R: strings.NewReader(`{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"n2"}}]}` + ds)},
	)
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, p := range got.At.Nodes {
		at = append(at, p.String())
	}
	want := []string{"a.yaml: YAML document 1", "a.yaml: YAML document 2, items[0], items[0]", "b.json: JSON value 1, items[0]"}
	if d := cmp.Diff(want, at); d != "" {
		t.Errorf("node positions mismatch (-want +got):\n%s", d)
	}
	c, err := got.Cluster("", "")
	if err != nil {
		t.Fatal(err)
	}
	if s := c.At.DaemonSet.String(); s != "b.json: JSON value 2" {
		t.Errorf("DaemonSet position %q, want b.json: JSON value 2", s)
	}
}
