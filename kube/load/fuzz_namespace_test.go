package load_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/kube/load"
)

// metaValues are the values FuzzNamespaceAttribution gives a namespace or
// a name: absent, null, empty, two strings, and values of other types.
var metaValues = []string{"", "null", `""`, `"ns"`, `"other"`, "5", "true", `{}`}

// FuzzNamespaceAttribution writes one DaemonSet's metadata as the fuzzer's
// bytes say (given one to three times; each null or an object whose
// namespace and name are absent, null, empty, a string or another type, the
// namespace possibly given twice), as an apps/v1 and as an OpenKruise
// DaemonSet, each in JSON and in YAML, and checks:
//
//  1. the four encodings read alike: all fail, or all read the same
//     namespace and name;
//  2. they read what the rule says: the last metadata stands whole, and in
//     it the last namespace; none (absent, null, empty) is the default
//     namespace, said in a warning that names it; a value that is not a
//     string is an error naming the field;
//  3. an object read is never in namespace "", and every error is a
//     *load.DecodeError naming the source and document.
func FuzzNamespaceAttribution(f *testing.F) {
	// The first byte is how many metadata less one; then, for each, the
	// namespace's value (255: metadata null; 128 and above: the namespace
	// given twice, the second value next) and the name's.
	f.Add([]byte{0, 3, 4})            // namespace "ns", name "other"
	f.Add([]byte{1, 3, 4, 0, 4})      // metadata twice, the second without namespace
	f.Add([]byte{0, 1, 4})            // namespace null
	f.Add([]byte{0, 255})             // metadata null
	f.Add([]byte{1, 5, 4, 3, 4})      // a numeric namespace, then metadata again
	f.Add([]byte{0, 131, 4, 4})       // namespace twice in one metadata
	f.Add([]byte{2, 3, 4, 255, 2, 2}) // metadata, null, then an empty namespace
	f.Fuzz(func(t *testing.T, shape []byte) {
		m := metaModel(shape)
		var got []string
		for _, gv := range []string{"apps/v1", "apps.kruise.io/v1beta1"} {
			for _, yaml := range []bool{false, true} {
				in := `{"apiVersion":"` + gv + `","kind":"DaemonSet",` + m.members + `}`
				if yaml {
					in = "apiVersion: " + gv + "\nkind: DaemonSet\n" + m.yaml
				}
				got = append(got, attribute(t, gv, in))
			}
		}
		for i := range got {
			if got[i] != got[0] {
				t.Fatalf("encodings disagree:\n  apps/v1 JSON: %s\n  apps/v1 YAML: %s\n  OpenKruise JSON: %s\n  OpenKruise YAML: %s\ninput: %s", got[0], got[1], got[2], got[3], m.members)
			}
		}
		if got[0] != m.want {
			t.Fatalf("read %s, want %s\ninput: %s", got[0], m.want, m.members)
		}
	})
}

// model is one metadata written as the fuzzer's bytes say, in JSON members
// and in YAML, and what the rule reads of it.
type model struct {
	members, yaml, want string
}

func metaModel(shape []byte) model {
	next := func() byte {
		if len(shape) == 0 {
			return 0
		}
		b := shape[0]
		shape = shape[1:]
		return b
	}
	var members, yaml []string
	times := 1 + int(next())%3
	lastNS, lastName, null := "", "", false
	for range times {
		b := next()
		if b == 255 {
			members, yaml = append(members, `"metadata":null`), append(yaml, "metadata: null")
			lastNS, lastName, null = "", "", true
			continue
		}
		ns, name := metaValues[int(b)%len(metaValues)], metaValues[int(next())%len(metaValues)]
		var fields []string
		if name != "" {
			fields = append(fields, `"name":`+name)
		}
		if ns != "" {
			fields = append(fields, `"namespace":`+ns)
		}
		if b >= 128 {
			// The namespace given twice: the last one stands.
			ns = metaValues[int(next())%len(metaValues)]
			if ns != "" {
				fields = append(fields, `"namespace":`+ns)
			} else if len(fields) > 0 && strings.HasPrefix(fields[len(fields)-1], `"namespace"`) {
				ns = fields[len(fields)-1][len(`"namespace":`):]
			}
		}
		obj := "{" + strings.Join(fields, ",") + "}"
		members, yaml = append(members, `"metadata":`+obj), append(yaml, "metadata: "+obj)
		lastNS, lastName, null = ns, name, false
	}
	m := model{members: strings.Join(members, ","), yaml: strings.Join(yaml, "\n") + "\n"}
	switch {
	case !null && !isString(lastName):
		m.want = "error metadata.name"
	case !null && !isString(lastNS):
		m.want = "error metadata.namespace"
	default:
		ns, name := unquoteOr(lastNS, "team"), unquoteOr(lastName, "")
		m.want = ns + "/" + name
	}
	return m
}

// isString reports a value the rule accepts for a string field: absent,
// null or a string.
func isString(v string) bool { return v == "" || v == "null" || strings.HasPrefix(v, `"`) }

// unquoteOr is the string v holds, or def when it holds none.
func unquoteOr(v, def string) string {
	var s string
	if v == "" || v == "null" || json.Unmarshal([]byte(v), &s) != nil || s == "" {
		return def
	}
	return s
}

// attribute reads in and renders where its one DaemonSet is planned, or
// the field its error names.
func attribute(t *testing.T, gv, in string) string {
	t.Helper()
	objs, err := load.Load(load.Options{DefaultNamespace: "team"}, load.Source{Name: "a", R: strings.NewReader(in)})
	if err != nil {
		var de *load.DecodeError
		if !errors.As(err, &de) || de.At.Source != "a" || de.At.Doc != 1 {
			t.Fatalf("%s: error %v is not a *load.DecodeError naming source and document", gv, err)
		}
		for _, f := range []string{"metadata.name", "metadata.namespace"} {
			if strings.Contains(err.Error(), f+":") {
				return "error " + f
			}
		}
		return "error " + err.Error()
	}
	var ns, name string
	switch {
	case len(objs.DaemonSets) == 1:
		ns, name = objs.DaemonSets[0].Namespace, objs.DaemonSets[0].Name
	case len(objs.Kruise) == 1:
		ns, name = objs.Kruise[0].GetNamespace(), objs.Kruise[0].GetName()
	default:
		t.Fatalf("%s: not one DaemonSet read", gv)
	}
	if ns == "" {
		t.Fatalf("%s: read in namespace \"\"", gv)
	}
	if ns == "team" {
		named := false
		for _, w := range objs.Warnings {
			named = named || (w.DefaultNamespace && strings.Contains(w.Message, `namespace "team"`))
		}
		if !named {
			t.Fatalf("%s: read in the default namespace without a warning naming it: %v", gv, objs.Warnings)
		}
	}
	return ns + "/" + name
}
