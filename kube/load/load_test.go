package load_test

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
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
		opts   load.Options
	}{
		{"malformed JSON", "truncated input", `{"apiVersion":"v1","kind":"List","items":[`, "load: JSON value 1", load.Options{}},
		{"malformed YAML", "a tab-indented mapping", "apiVersion: v1\nkind: Node\nmetadata:\n\tname: x\n", "load: YAML document 1", load.Options{}},
		{"no kind", "an object must say what it is", `{"apiVersion":"v1","metadata":{"name":"x"}}`, "without apiVersion or kind", load.Options{}},
		{"not an object", "a list item must be an object", `{"apiVersion":"v1","kind":"List","items":["x"]}`, "items[0]: not an object", load.Options{}},
		{"old DaemonSet version", "apps/v1beta2 is not served by v1.34", `{"apiVersion":"apps/v1beta2","kind":"DaemonSet","metadata":{"name":"x"}}`, "unsupported apiVersion, want apps/v1", load.Options{}},
		{"extensions DaemonSet", "extensions/v1beta1 is not served by v1.34", `{"apiVersion":"extensions/v1beta1","kind":"DaemonSet","metadata":{"name":"x"}}`, "unsupported apiVersion", load.Options{}},
		{"wrong field type", "a typed field of the wrong JSON type", `{"apiVersion":"v1","kind":"List","items":[` + node + `,{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"x"},"spec":{"minReadySeconds":"5"}}]}`, `JSON value 1, items[1] (apps/v1 DaemonSet x)`, load.Options{}},
		{"JSON field twice", "with Strict a repeated key is refused, as kubectl --validate=strict refuses it", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":{"nodeName":"a","nodeName":"b"}}`, `JSON value 1 (v1 Pod ns/p): strict decoding error: duplicate field "spec.nodeName"`, load.Options{Strict: true}},
		{"JSON items twice", "with Strict a List with two items keys is refused: it would drop the first list's objects", `{"apiVersion":"v1","kind":"List","items":[` + node + `],"items":[]}`, `JSON value 1: strict decoding error: duplicate field "items"`, load.Options{Strict: true}},
		{"deep nesting", "lists nested without end are refused", strings.Repeat("[", 20) + strings.Repeat("]", 20), "nested too deeply", load.Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load.Load(tt.opts, load.Source{R: strings.NewReader(tt.in)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: Decode() error = %v, want one containing %q", tt.reason, err, tt.want)
			}
		})
	}
}

func TestSnapshot(t *testing.T) {
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
			c, err := objs.Snapshot(tt.namespace, tt.dsNm)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("%s: Snapshot() error = %v, want %v", tt.reason, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: Snapshot: %v", tt.reason, err)
			}
			if got := c.DaemonSet.Namespace + "/" + c.DaemonSet.Name; got != tt.want {
				t.Errorf("%s: Snapshot() picked %s, want %s", tt.reason, got, tt.want)
			}
			if len(c.Nodes) != len(objs.Nodes) {
				t.Errorf("%s: Snapshot() has %d nodes, want %d", tt.reason, len(c.Nodes), len(objs.Nodes))
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

// FuzzDecode reads the fuzzer's bytes as one source and checks:
//
//  1. Sources returns objects or an error, never both nor neither, and
//     never panics; a failure is an *Error with a position (document 1 or
//     later) whose text starts with "load: " and names it;
//  2. every object has its position, and no decoded name holds U+FFFD;
//  3. the same bytes given twice, as two sources, decode to the same
//     objects at the same positions (identical copies are merged), and
//     concatenated as two YAML documents or JSON values too;
//  4. Snapshot never panics, and picks a DaemonSet that was decoded.
func FuzzDecode(f *testing.F) {
	f.Add(`{"apiVersion":"v1","kind":"List","items":[` + ds + "," + node + "," + pod + "," + cr + `]}`)
	f.Add("apiVersion: v1\nkind: List\nitems:\n- " + node + "\n---\n" + pod)
	f.Add(`[[{"kind":"NodeList","apiVersion":"v1","items":[{}]}]]`)
	f.Add("--- \n: x\n")
	f.Add(node + node)
	f.Add(admissionYAML)
	f.Add("apiVersion: v1\nkind: Node\nmetadata: {name: n\xff}\n")
	f.Add(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n\udcfe","uid":"u"}}{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"u"}}`)
	cases, err := conformance.SmallestCases(1)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(string(c.Cluster))
	}
	f.Fuzz(func(t *testing.T, in string) {
		objs, err := load.Sources(load.Source{Name: "a", R: strings.NewReader(in)})
		if (err == nil) == (objs == nil) {
			t.Fatalf("Sources returned objects %v and error %v", objs != nil, err)
		}
		if err != nil {
			var le *load.DecodeError
			if !errors.As(err, &le) || le.At.Doc < 1 || le.At.Source != "a" || !strings.HasPrefix(err.Error(), "load: a: ") {
				t.Fatalf("error %q is not a *load.DecodeError with a position in source a", err)
			}
			return
		}
		at := objs.At
		if len(at.DaemonSets) != len(objs.DaemonSets) || len(at.Nodes) != len(objs.Nodes) || len(at.Pods) != len(objs.Pods) || len(at.Revisions) != len(objs.Revisions) {
			t.Fatalf("positions do not match the objects")
		}
		for _, p := range append(append(append(slices.Clone(at.DaemonSets), at.Nodes...), at.Pods...), at.Revisions...) {
			if p.Doc < 1 || p.Source != "a" {
				t.Fatalf("bad position %+v", p)
			}
		}
		for _, n := range objs.Nodes {
			if strings.ContainsRune(n.Name, utf8.RuneError) {
				t.Fatalf("node name %q holds U+FFFD", n.Name)
			}
		}
		for _, p := range objs.Pods {
			if strings.ContainsRune(p.Name+p.Namespace+string(p.UID), utf8.RuneError) {
				t.Fatalf("pod %s/%s holds U+FFFD", p.Namespace, p.Name)
			}
		}
		twice, err := load.Sources(load.Source{Name: "a", R: strings.NewReader(in)}, load.Source{Name: "b", R: strings.NewReader(in)})
		if err != nil {
			t.Fatalf("the same input twice: %v", err)
		}
		if d := cmp.Diff(summarize(objs), summarize(twice)); d != "" {
			t.Fatalf("the same input twice decodes differently (-once +twice):\n%s", d)
		}
		if d := cmp.Diff(objs.At, twice.At); d != "" {
			t.Fatalf("the same input twice moves positions (-once +twice):\n%s", d)
		}
		c, err := objs.Snapshot("", "")
		if err == nil && !slices.Contains(objs.DaemonSets, c.DaemonSet) {
			t.Fatalf("Snapshot picked a DaemonSet that was not decoded")
		}
	})
}

// FuzzJSONStream: the loader's scanner never accepts what encoding/json
// refuses. Whatever JSON input Decode accepts is a stream of valid JSON
// values.
func FuzzJSONStream(f *testing.F) {
	f.Add(`{"apiVersion":"v1","kind":"List","items":[` + ds + "," + node + `],"metadata":{}}`)
	f.Add(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":tru}}`)
	f.Add(`[` + node + `] {"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"x\"y"}}]}`)
	f.Add(`{"apiVersion":"v1","kind":"List","items":[1,]}`)
	f.Fuzz(func(t *testing.T, in string) {
		trimmed := strings.TrimLeft(in, " \t\r\n")
		if trimmed == "" || (trimmed[0] != '{' && trimmed[0] != '[') {
			return
		}
		if _, err := load.Decode(strings.NewReader(in)); err != nil {
			return
		}
		dec := json.NewDecoder(strings.NewReader(in))
		for {
			var v json.RawMessage
			err := dec.Decode(&v)
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("Decode accepted malformed JSON: %v", err)
			}
		}
	})
}
