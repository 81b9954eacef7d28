package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/kube/internal/yamlcost"
)

// Errors returned by Read and Objects.Snapshot, and wrapped in an *Error by
// Sources; test with errors.Is.
var (
	// ErrNoDaemonSet reports input without the DaemonSet asked for.
	ErrNoDaemonSet = errors.New("load: no DaemonSet in input")
	// ErrManyDaemonSets reports input with several DaemonSets when none
	// was named.
	ErrManyDaemonSets = errors.New("load: more than one DaemonSet in input")
	// ErrConflict reports one object found twice with different content,
	// or two objects sharing a UID.
	ErrConflict = errors.New("the same object appears twice with different content")
	// ErrInvalidUTF8 reports input that is not valid UTF-8, or a name that
	// holds U+FFFD, which is what invalid UTF-8 becomes when decoded.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrAliasExpansion reports a YAML document whose aliases would expand
	// it by more than MaxAliasExpansion bytes.
	ErrAliasExpansion = errors.New("YAML aliases expand the document too far")
)

// MaxAliasExpansion bounds the bytes a YAML document's aliases may add to
// it once expanded (4 MiB, more than twice the largest object the API
// server stores): a document beyond it is refused before it is decoded,
// with ErrAliasExpansion. kubectl prints no aliases; hand-written ones
// that repeat a container or a toleration list add kilobytes.
const MaxAliasExpansion = 4 << 20

// kruiseGroup is the API group of OpenKruise's Advanced DaemonSet.
const kruiseGroup = "apps.kruise.io"

// maxListDepth bounds Lists nested in Lists, so that hostile input cannot
// exhaust the stack.
const maxListDepth = 8

// Source is one input: a file, standard input or any reader.
type Source struct {
	// Name names the source in positions and errors, e.g. a file name or
	// "standard input". It may be empty when there is a single source.
	Name string
	R    io.Reader
}

// Position is where an object was found in the input.
type Position struct {
	// Source is the Source's name.
	Source string
	// YAML reports that the source was read as YAML; Doc then counts YAML
	// documents, else JSON values. Both count from 1.
	YAML bool
	Doc  int
	// Items are the indexes of the object in the Lists (or arrays) that
	// hold it, outermost first; empty for an object that is a document of
	// its own.
	Items []int
}

// String renders the position as "a.yaml: YAML document 2, items[3]". A
// position without a document (Doc 0, for objects a caller adds) renders as
// its source alone.
func (p Position) String() string {
	if p.Doc == 0 {
		if p.Source == "" {
			return "input"
		}
		return p.Source
	}
	var b strings.Builder
	if p.Source != "" {
		b.WriteString(p.Source)
		b.WriteString(": ")
	}
	if p.YAML {
		b.WriteString("YAML document ")
	} else {
		b.WriteString("JSON value ")
	}
	b.WriteString(strconv.Itoa(p.Doc))
	for _, i := range p.Items {
		b.WriteString(", items[")
		b.WriteString(strconv.Itoa(i))
		b.WriteString("]")
	}
	return b.String()
}

// item returns the position of item i of the list at p.
func (p Position) item(i int) Position {
	items := make([]int, len(p.Items)+1)
	copy(items, p.Items)
	items[len(p.Items)] = i
	p.Items = items
	return p
}

// DecodeError is a problem with one document or object of the input.
type DecodeError struct {
	At Position
	// Object names the object as "apiVersion kind namespace/name" when it
	// is known.
	Object string
	Err    error
}

func (e *DecodeError) Error() string {
	if e == nil {
		return "<nil>"
	}
	s := "load: " + e.At.String()
	if e.Object != "" {
		s += " (" + e.Object + ")"
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the underlying error (ErrConflict, ErrInvalidUTF8, a
// decoding error).
func (e *DecodeError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Objects is everything Sources found, in input order. An object found
// several times with the same content is listed once.
type Objects struct {
	DaemonSets []*appsv1.DaemonSet
	Nodes      []*corev1.Node
	Pods       []*corev1.Pod
	Revisions  []*appsv1.ControllerRevision
	// Kruise holds the OpenKruise Advanced DaemonSets (apps.kruise.io,
	// kind DaemonSet), as read, for convert.KruiseDaemonSet: found in the
	// same pass as the rest, merged like them.
	Kruise []*unstructured.Unstructured
	// LimitRanges, PriorityClasses and RuntimeClasses are what admission
	// reads (package admission, through convert.AdmissionObjects);
	// PodDisruptionBudgets what the scheduler's preemption respects.
	LimitRanges          []*corev1.LimitRange
	PriorityClasses      []*schedulingv1.PriorityClass
	RuntimeClasses       []*nodev1.RuntimeClass
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	// Ignored names the objects of other kinds, as "apiVersion kind
	// namespace/name", each once, for callers that want to warn about them.
	Ignored []string
	// Warnings are what kubectl would warn about while reading the input:
	// unknown and duplicate fields (Options.Strict makes them errors), and
	// objects read in Options.DefaultNamespace.
	Warnings []DecodeWarning
	// At holds where each object was found (its first copy): At.Pods[i] is
	// the position of Pods[i].
	At Positions
}

// Positions are the positions of the objects of Objects, list by list.
type Positions struct {
	DaemonSets, Nodes, Pods, Revisions, Kruise                         []Position
	LimitRanges, PriorityClasses, RuntimeClasses, PodDisruptionBudgets []Position
}

// DecodeWarning is something kubectl would warn about in the input, at a
// position.
type DecodeWarning struct {
	At Position
	// Object names the object as "apiVersion kind namespace/name" when it
	// is known.
	Object string
	// Message is worded as kubectl words it: `unknown field
	// "spec.template.spec.nodeselector"`.
	Message string
	// DefaultNamespace marks the one warning that objects were read in
	// Options.DefaultNamespace, which a caller that chose that namespace
	// for a reason of its own may leave unsaid.
	DefaultNamespace bool
}

// String renders the warning as `a.yaml: YAML document 2 (v1 Pod ns/p):
// unknown field "spec.foo"`.
func (w DecodeWarning) String() string {
	s := w.At.String()
	if w.Object != "" {
		s += " (" + w.Object + ")"
	}
	return s + ": " + w.Message
}

// Snapshot is the input of one sync: one DaemonSet and the nodes, pods and
// ControllerRevisions around it. Pods and revisions are not filtered: the
// sync decides which ones the DaemonSet owns.
type Snapshot struct {
	DaemonSet *appsv1.DaemonSet
	Nodes     []*corev1.Node
	Pods      []*corev1.Pod
	Revisions []*appsv1.ControllerRevision
	Ignored   []string
	// At holds where each object was found.
	At SnapshotPositions
}

// SnapshotPositions are the positions of the objects of a Snapshot.
type SnapshotPositions struct {
	DaemonSet              Position
	Nodes, Pods, Revisions []Position
}

// Read decodes r like Decode and requires exactly one DaemonSet.
func Read(r io.Reader) (*Snapshot, error) {
	objs, err := Decode(r)
	if err != nil {
		return nil, err
	}
	return objs.Snapshot("", "")
}

// Snapshot picks the DaemonSet namespace/name. With an empty name it picks
// the only DaemonSet and fails with ErrManyDaemonSets if there are several;
// an empty namespace matches any namespace. The returned Snapshot shares the
// objects (not copies) with o. A nil *Objects holds no DaemonSet.
func (o *Objects) Snapshot(namespace, name string) (*Snapshot, error) {
	if o == nil {
		o = &Objects{}
	}
	var found []int
	for i, ds := range o.DaemonSets {
		if (namespace == "" || ds.Namespace == namespace) && (name == "" || ds.Name == name) {
			found = append(found, i)
		}
	}
	switch {
	case len(found) == 0 && name == "":
		return nil, ErrNoDaemonSet
	case len(found) == 0:
		return nil, fmt.Errorf("%w: %s", ErrNoDaemonSet, qualified(namespace, name))
	case len(found) > 1:
		names := make([]string, len(found))
		for i, j := range found {
			names[i] = o.DaemonSets[j].Namespace + "/" + o.DaemonSets[j].Name
		}
		return nil, fmt.Errorf("%w: %s", ErrManyDaemonSets, strings.Join(names, ", "))
	}
	var at Position
	if found[0] < len(o.At.DaemonSets) {
		at = o.At.DaemonSets[found[0]]
	}
	return &Snapshot{
		DaemonSet: o.DaemonSets[found[0]],
		Nodes:     o.Nodes,
		Pods:      o.Pods,
		Revisions: o.Revisions,
		Ignored:   o.Ignored,
		At: SnapshotPositions{
			DaemonSet: at,
			Nodes:     o.At.Nodes,
			Pods:      o.At.Pods,
			Revisions: o.At.Revisions,
		},
	}, nil
}

func qualified(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// DefaultNamespace is the namespace kubectl gives an object without one
// when neither -n nor the kubeconfig context names another.
const DefaultNamespace = "default"

// Options are how Load reads its input.
type Options struct {
	// DefaultNamespace is the namespace of a DaemonSet, pod, revision or
	// OpenKruise DaemonSet written without metadata.namespace, as kubectl
	// gives it the namespace of -n or of the context; empty means
	// "default". Each such object is set in it and counted in one warning.
	DefaultNamespace string
	// Strict makes unknown and duplicate fields errors, as kubectl's
	// --validate=strict does; without it they are warnings and, as the
	// API server stores it, a field given twice keeps its last value.
	Strict bool
}

// Decode reads every object of one unnamed JSON or YAML stream: it is
// Sources with a single Source without a name.
func Decode(r io.Reader) (*Objects, error) {
	return Sources(Source{R: r})
}

// Sources is Load with the zero Options.
func Sources(srcs ...Source) (*Objects, error) {
	return Load(Options{}, srcs...)
}

// Load reads every source in order, as `kubectl get -f a -f b` reads
// several files, and merges what they hold (see the package documentation).
// It fails on malformed input, invalid UTF-8, kinds kubectl would not know
// and conflicting copies of an object, with an *Error naming the source,
// document and item; it never panics. Each source is read once, in one
// pass.
func Load(opts Options, srcs ...Source) (*Objects, error) {
	m := &merger{objs: &Objects{}, byKey: map[string]ref{}, byUID: map[string]ref{}, ignored: map[string]bool{}, opts: opts}
	if m.opts.DefaultNamespace == "" {
		m.opts.DefaultNamespace = DefaultNamespace
	}
	for _, src := range srcs {
		if src.R == nil {
			return nil, fmt.Errorf("load: %s: no reader", orStdin(src.Name))
		}
		data, err := readAll(src.R)
		if err != nil {
			return nil, fmt.Errorf("load: %s: reading input: %w", orStdin(src.Name), err)
		}
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
			err = m.decodeJSONStream(src.Name, trimmed)
		} else {
			err = m.decodeYAMLStream(src.Name, data)
		}
		if err != nil {
			return nil, err
		}
	}
	if m.defaulted > 0 {
		m.objs.Warnings = append(m.objs.Warnings, DecodeWarning{At: m.firstDefaulted, Object: m.firstDefaultedID,
			Message: fmt.Sprintf("%d object(s) without metadata.namespace read in namespace %q, as kubectl reads them (-n sets another)",
				m.defaulted, m.opts.DefaultNamespace), DefaultNamespace: true})
	}
	return m.objs, nil
}

// readAll reads r whole, into one buffer sized from the file's size when r
// is a file, so that a large dump is not copied while it is read.
func readAll(r io.Reader) ([]byte, error) {
	if b, ok := r.(*bytes.Reader); ok {
		data := make([]byte, b.Len())
		_, err := io.ReadFull(b, data)
		return data, err
	}
	var buf bytes.Buffer
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			buf.Grow(int(fi.Size()) + bytes.MinRead)
		}
	}
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

func orStdin(name string) string {
	if name == "" {
		return "input"
	}
	return name
}

// merger accumulates the objects of several sources and detects repeats.
type merger struct {
	objs *Objects
	opts Options
	// byKey maps kind, namespace and name to the object; byUID maps a
	// non-empty UID to it.
	byKey map[string]ref
	byUID map[string]ref
	// ignored holds the names in objs.Ignored, which lists each once.
	ignored map[string]bool
	// defaulted counts the objects set in the default namespace; the
	// first is named in the warning.
	defaulted        int
	firstDefaulted   Position
	firstDefaultedID string
}

// ref is one object already kept.
type ref struct {
	kind  string
	index int // into the kind's list in objs
	id    string
}

func (m *merger) decodeJSONStream(src string, data []byte) error {
	for doc, i := 1, skipSpace(data, 0); i < len(data); doc++ {
		at := Position{Source: src, Doc: doc}
		end, err := skipValue(data, i)
		if err != nil {
			return &DecodeError{At: at, Err: syntaxError(data[i:])}
		}
		if err := m.add(data[i:end], at, "", "", 0); err != nil {
			return err
		}
		i = skipSpace(data, end)
	}
	return nil
}

func (m *merger) decodeYAMLStream(src string, data []byte) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		at := Position{Source: src, YAML: true, Doc: doc}
		chunk, err := reader.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &DecodeError{At: at, Err: err}
		}
		if i := invalidUTF8(chunk); i >= 0 {
			line := 1 + bytes.Count(chunk[:i], []byte("\n"))
			return &DecodeError{At: at, Err: fmt.Errorf("%w at line %d of the document", ErrInvalidUTF8, line)}
		}
		// The conversion copies an aliased value out at every alias: measure
		// what that adds while the document is still a node tree.
		if added, err := yamlcost.AliasBytes(chunk, MaxAliasExpansion); err != nil {
			return &DecodeError{At: at, Err: err}
		} else if added > MaxAliasExpansion {
			return &DecodeError{At: at, Err: fmt.Errorf("%w: they add more than %d bytes once expanded (load.MaxAliasExpansion); refused before decoding", ErrAliasExpansion, MaxAliasExpansion)}
		}
		// Strict conversion refuses a key repeated in one mapping; the API
		// server then warns with the YAML decoder's message and keeps the
		// last value, as a lenient conversion does.
		raw, err := yaml.YAMLToJSONStrict(chunk)
		if err != nil {
			lenient, lerr := yaml.YAMLToJSON(chunk)
			if lerr != nil {
				return &DecodeError{At: at, Err: lerr}
			}
			msg := strings.TrimPrefix(strings.Join(strings.Fields(err.Error()), " "), "error converting YAML to JSON: ")
			msg = strings.TrimPrefix(msg, "yaml: unmarshal errors: ")
			if m.opts.Strict {
				return &DecodeError{At: at, Err: fmt.Errorf("%s (several documents concatenated without \"---\" between them?)", msg)}
			}
			m.objs.Warnings = append(m.objs.Warnings, DecodeWarning{At: at, Message: msg})
			raw = lenient
		}
		if isNull(raw) {
			continue // an empty document, e.g. after a trailing "---"
		}
		if err := m.add(bytes.TrimSpace(raw), at, "", "", 0); err != nil {
			return err
		}
	}
}

// strictFindings decodes JSON into a typed v as the API server does (field
// names case-sensitive, integers kept) and returns its strict-decoding
// findings: unknown fields (a misspelled or mis-indented one, which plain
// decoding drops) and fields given twice (plain decoding keeps the last
// value), worded as kubectl words them.
func strictFindings(data []byte, v any) ([]error, error) {
	return sigsjson.UnmarshalStrict(data, v, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
}

// invalidUTF8 returns the offset of the first byte of b that is not valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

func isNull(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// header is the part of an object that classifies it, read by the
// scanner without decoding the rest.
type header struct {
	apiVersion, kind     string
	namespace, name, uid string
	items                []byte // the "items" value, nil without one
	duplicates           []string
	headerTypes          error
}

// readHeader reads the header fields of the object t.
func readHeader(t []byte) (header, error) {
	var h header
	fs, err := fields(t)
	if err != nil {
		return h, err
	}
	seen := make(map[string]bool, len(fs))
	str := func(key string, v []byte, dst *string) {
		if err := json.Unmarshal(v, dst); err != nil && h.headerTypes == nil {
			h.headerTypes = fmt.Errorf("%s: want a string, found %s", key, abbreviate(v))
		}
	}
	for _, f := range fs {
		if seen[f.key] {
			h.duplicates = append(h.duplicates, f.key)
		}
		seen[f.key] = true
		switch f.key {
		case "apiVersion":
			str("apiVersion", f.value, &h.apiVersion)
		case "kind":
			str("kind", f.value, &h.kind)
		case "items":
			h.items = f.value
		case "metadata":
			if len(f.value) == 0 || f.value[0] != '{' {
				continue // the typed decoder reports it
			}
			mfs, err := fields(f.value)
			if err != nil {
				return h, err
			}
			for _, mf := range mfs {
				switch mf.key {
				case "namespace":
					_ = json.Unmarshal(mf.value, &h.namespace)
				case "name":
					_ = json.Unmarshal(mf.value, &h.name)
				case "uid":
					_ = json.Unmarshal(mf.value, &h.uid)
				}
			}
		}
	}
	return h, nil
}

// abbreviate renders a JSON value for a message, shortened.
func abbreviate(v []byte) string {
	if len(v) > 40 {
		return string(v[:37]) + "..."
	}
	return string(v)
}

// The kinds decoded into k8s.io/api types, and the version each is read in.
var kinds = map[string]map[string]string{
	// kind: group: the apiVersion the API server serves it in
	"DaemonSet":           {"apps": "apps/v1", "extensions": "apps/v1"},
	"ControllerRevision":  {"apps": "apps/v1"},
	"Node":                {"": "v1"},
	"Pod":                 {"": "v1"},
	"LimitRange":          {"": "v1"},
	"PriorityClass":       {"scheduling.k8s.io": "scheduling.k8s.io/v1"},
	"RuntimeClass":        {"node.k8s.io": "node.k8s.io/v1"},
	"PodDisruptionBudget": {"policy": "policy/v1"},
}

// classify decides how kubectl would read an object of apiVersion and
// kind: want is the apiVersion it is decoded in ("" for a kind read
// elsewhere or ignored), kruise reports an OpenKruise DaemonSet, and err a
// kind or apiVersion kubectl would not know.
func classify(apiVersion, kind string) (want string, kruise bool, err error) {
	group, version := "", apiVersion
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		group, version = apiVersion[:i], apiVersion[i+1:]
	}
	noMatch := func(hint string) error {
		return fmt.Errorf("no matches for kind %q in version %q%s", kind, apiVersion, hint)
	}
	if version == "" || strings.Contains(version, "/") {
		return "", false, noMatch("")
	}
	if group == "core" {
		return "", false, noMatch(` (the core group is written "v1", without a group)`)
	}
	if kind == "DaemonSet" && group == kruiseGroup {
		if version != "v1beta1" && version != "v1alpha1" {
			return "", false, fmt.Errorf("unsupported apiVersion, want %s/v1beta1 or %s/v1alpha1", kruiseGroup, kruiseGroup)
		}
		return "", true, nil
	}
	if groups, ok := kinds[kind]; ok {
		if want, ok := groups[group]; ok {
			if apiVersion != want {
				return "", false, fmt.Errorf("unsupported apiVersion, want %s", want)
			}
			return want, false, nil
		}
	}
	for k := range kinds {
		if k != kind && strings.EqualFold(k, kind) {
			return "", false, noMatch(fmt.Sprintf(" (kinds are case-sensitive: %s)", k))
		}
	}
	// The core and apps groups, where daemonplan's kinds live, are known
	// offline; other groups (and custom resources) are the API server's to
	// know, and ignored here.
	if known, ok := builtinKinds[group]; ok && !slices.Contains(known[version], kind) {
		return "", false, noMatch("")
	}
	return "", false, nil
}

// builtinKinds are the kinds of the core and apps groups the API server
// serves, by group and version, as client-go's scheme lists them.
var builtinKinds = map[string]map[string][]string{
	"": {"v1": {"APIGroup", "APIVersions", "Binding", "ComponentStatus", "ConfigMap", "Endpoints", "Event", "LimitRange",
		"List", "Namespace", "Node", "PersistentVolume", "PersistentVolumeClaim", "Pod", "PodTemplate", "RangeAllocation",
		"ReplicationController", "ResourceQuota", "Secret", "SerializedReference", "Service", "ServiceAccount", "Status"}},
	"apps": {"v1": {"ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"}},
}

// isListKind reports a kind kubectl reads as a list even without items.
func isListKind(kind string) bool { return strings.HasSuffix(kind, "List") }

// namespaced reports whether objects of kind have a namespace.
func namespaced(kind string) bool {
	return kind != "Node" && kind != "PriorityClass" && kind != "RuntimeClass"
}

// newTyped returns an empty object of a typed kind the loader keeps (its
// apiVersion and kind come from the decoded text, then add sets them as
// found); every other kind it reaches is a Pod.
func newTyped(kind string) runtime.Object {
	switch kind {
	case "DaemonSet":
		return &appsv1.DaemonSet{}
	case "ControllerRevision":
		return &appsv1.ControllerRevision{}
	case "Node":
		return &corev1.Node{}
	case "LimitRange":
		return &corev1.LimitRange{}
	case "PriorityClass":
		return &schedulingv1.PriorityClass{}
	case "RuntimeClass":
		return &nodev1.RuntimeClass{}
	case "PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}
	}
	return &corev1.Pod{}
}

// add decodes one JSON value t (trimmed) found at at. defAPIVersion and
// defKind apply to items of a typed list (NodeList), whose items the API
// server prints without apiVersion and kind.
func (m *merger) add(t []byte, at Position, defAPIVersion, defKind string, depth int) error {
	if len(t) > 0 && t[0] == '[' {
		if depth >= maxListDepth {
			return &DecodeError{At: at, Err: errors.New("lists nested too deeply")}
		}
		return elementsAt(t, at, func(item []byte, at Position) error {
			return m.add(item, at, defAPIVersion, defKind, depth+1)
		})
	}
	if len(t) == 0 || t[0] != '{' {
		if !json.Valid(t) {
			return &DecodeError{At: at, Err: syntaxError(t)}
		}
		return &DecodeError{At: at, Err: errors.New("not an object")}
	}
	h, err := readHeader(t)
	if err != nil {
		return &DecodeError{At: at, Err: err}
	}
	if h.headerTypes != nil {
		return &DecodeError{At: at, Err: h.headerTypes}
	}
	// An item of a typed list without apiVersion and kind is of the
	// list's kind (as kubectl reads it: both or neither).
	if h.apiVersion == "" && h.kind == "" {
		h.apiVersion, h.kind = defAPIVersion, defKind
	}
	if h.items != nil {
		// Any object with items is a list, as kubectl reads it; its
		// items without apiVersion and kind are of its kind less "List".
		if depth >= maxListDepth {
			return &DecodeError{At: at, Err: errors.New("lists nested too deeply")}
		}
		if h.kind == "" {
			return &DecodeError{At: at, Err: errors.New("a list without kind")}
		}
		if err := m.listFindings(t, at, h); err != nil {
			return err
		}
		items := bytes.TrimSpace(h.items)
		if string(items) == "null" {
			return nil
		}
		if len(items) == 0 || items[0] != '[' {
			return &DecodeError{At: at, Err: fmt.Errorf("items: want an array, found %s", abbreviate(items))}
		}
		itemKind := strings.TrimSuffix(h.kind, "List")
		return elementsAt(items, at, func(item []byte, at Position) error {
			return m.add(item, at, h.apiVersion, itemKind, depth+1)
		})
	}
	if h.kind == "" || h.apiVersion == "" {
		return &DecodeError{At: at, Err: errors.New("object without apiVersion or kind")}
	}

	id := h.apiVersion + " " + h.kind + " " + qualified(h.namespace, h.name)
	fail := func(err error) error { return &DecodeError{At: at, Object: id, Err: err} }
	want, kruise, err := classify(h.apiVersion, h.kind)
	if err != nil {
		return fail(err)
	}
	if want == "" && !kruise {
		// Not decoded: only walked, so checked here.
		if !json.Valid(t) {
			return fail(syntaxError(t))
		}
		if isListKind(h.kind) {
			return nil // an empty list without items
		}
		if !m.ignored[id] {
			m.ignored[id] = true
			m.objs.Ignored = append(m.objs.Ignored, id)
		}
		return nil
	}
	// Decoding replaces invalid UTF-8 with U+FFFD, which would make
	// different names equal: refuse both (U+FFFD once decoded, below).
	if i := invalidUTF8(t); i >= 0 {
		return fail(fmt.Errorf("%w at byte %d of the object", ErrInvalidUTF8, i))
	}

	decode := func(t []byte) (any, []error, error) {
		if kruise {
			u := &unstructured.Unstructured{}
			findings, err := decodeKruise(t, u)
			return u, findings, err
		}
		obj := newTyped(h.kind)
		findings, err := strictFindings(t, obj)
		return obj, findings, err
	}
	obj, findings, err := decode(t)
	// A field given twice keeps its last value, whole, as YAML keeps it
	// and as a map (an OpenKruise DaemonSet) keeps it; the typed decoder
	// would merge two objects field by field instead, so that the same
	// input would name another namespace in JSON than in YAML, or as
	// apps/v1 than as OpenKruise. Only input with a repeated key pays for
	// the rewrite.
	if err != nil || slices.ContainsFunc(findings, isDuplicate) {
		if last, dups := lastWins(t); len(dups) > 0 {
			if err != nil {
				findings = nil
				for _, d := range dups {
					findings = append(findings, fmt.Errorf("duplicate field %q", d))
				}
			}
			var more []error
			obj, more, err = decode(last)
			for _, f := range more {
				if !isDuplicate(f) && !slices.ContainsFunc(findings, func(g error) bool { return g.Error() == f.Error() }) {
					findings = append(findings, f)
				}
			}
		}
	}
	if err != nil {
		return fail(typeError(err))
	}
	// The object is named by what was decoded, not by what the scanner
	// saw: with metadata given twice, only the decoder knows which
	// namespace and name stand.
	meta := obj.(metav1.Object)
	if meta.GetNamespace() != h.namespace || meta.GetName() != h.name {
		id = h.apiVersion + " " + h.kind + " " + qualified(meta.GetNamespace(), meta.GetName())
	}
	for _, f := range []struct{ field, value string }{
		{"metadata.name", meta.GetName()}, {"metadata.namespace", meta.GetNamespace()}, {"metadata.uid", string(meta.GetUID())},
	} {
		if strings.ContainsRune(f.value, utf8.RuneError) {
			return fail(fmt.Errorf("%w: %s %q holds U+FFFD", ErrInvalidUTF8, f.field, f.value))
		}
	}
	if err := m.findings(at, id, findings); err != nil {
		return err
	}
	// What apiVersion and kind an object was found with (a typed list's
	// item has none) does not make it another object.
	apiVersion := want
	if _, ok := obj.(*unstructured.Unstructured); ok {
		apiVersion = h.apiVersion // a Kruise kind keeps the version found
	}
	obj.(runtime.Object).GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(apiVersion, h.kind))
	kind := h.kind
	if kruise {
		kind = "Kruise"
	}
	if namespaced(kind) && meta.GetNamespace() == "" {
		meta.SetNamespace(m.opts.DefaultNamespace)
		if m.defaulted == 0 {
			m.firstDefaulted, m.firstDefaultedID = at, id
		}
		m.defaulted++
	}
	key, uid := identity(kind, meta)
	if prev, ok := m.byKey[key]; ok {
		if same(m.object(prev), obj) {
			return nil // the same object again: keep the first copy
		}
		return fail(fmt.Errorf("%w: differs from its copy at %s", ErrConflict, m.position(prev)))
	}
	if uid != "" {
		if prev, ok := m.byUID[uid]; ok {
			return fail(fmt.Errorf("%w: has the UID %q of %s at %s", ErrConflict, uid, prev.id, m.position(prev)))
		}
	}
	o := m.objs
	r := ref{kind: kind, index: m.count(kind), id: id}
	m.byKey[key] = r
	if uid != "" {
		m.byUID[uid] = r
	}
	switch v := obj.(type) {
	case *appsv1.DaemonSet:
		o.DaemonSets = append(o.DaemonSets, v)
		o.At.DaemonSets = append(o.At.DaemonSets, at)
	case *appsv1.ControllerRevision:
		o.Revisions = append(o.Revisions, v)
		o.At.Revisions = append(o.At.Revisions, at)
	case *corev1.Node:
		o.Nodes = append(o.Nodes, v)
		o.At.Nodes = append(o.At.Nodes, at)
	case *corev1.Pod:
		o.Pods = append(o.Pods, v)
		o.At.Pods = append(o.At.Pods, at)
	case *unstructured.Unstructured:
		o.Kruise = append(o.Kruise, v)
		o.At.Kruise = append(o.At.Kruise, at)
	case *corev1.LimitRange:
		o.LimitRanges = append(o.LimitRanges, v)
		o.At.LimitRanges = append(o.At.LimitRanges, at)
	case *schedulingv1.PriorityClass:
		o.PriorityClasses = append(o.PriorityClasses, v)
		o.At.PriorityClasses = append(o.At.PriorityClasses, at)
	case *nodev1.RuntimeClass:
		o.RuntimeClasses = append(o.RuntimeClasses, v)
		o.At.RuntimeClasses = append(o.At.RuntimeClasses, at)
	case *policyv1.PodDisruptionBudget:
		o.PodDisruptionBudgets = append(o.PodDisruptionBudgets, v)
		o.At.PodDisruptionBudgets = append(o.At.PodDisruptionBudgets, at)
	}
	return nil
}

// elementsAt calls fn with each element of the array t and its position.
func elementsAt(t []byte, at Position, fn func(item []byte, at Position) error) error {
	err := elements(t, func(i int, v []byte) error { return fn(v, at.item(i)) })
	var e *DecodeError
	if err != nil && !errors.As(err, &e) {
		return &DecodeError{At: at, Err: err}
	}
	return err
}

// listFindings checks the fields of a list other than its items, which the
// scanner only skipped: they must be valid JSON, and a field given twice
// is a finding.
func (m *merger) listFindings(t []byte, at Position, h header) error {
	fs, err := fields(t)
	if err != nil {
		return &DecodeError{At: at, Err: err}
	}
	for _, f := range fs {
		if f.key != "items" && !json.Valid(f.value) {
			return &DecodeError{At: at, Err: syntaxError(f.value)}
		}
	}
	var findings []error
	for _, d := range h.duplicates {
		findings = append(findings, fmt.Errorf("duplicate field %q", d))
	}
	return m.findings(at, "", findings)
}

// findings records strict-decoding findings as warnings, or with
// Options.Strict fails with them.
func (m *merger) findings(at Position, id string, findings []error) error {
	if len(findings) == 0 {
		return nil
	}
	if m.opts.Strict {
		return &DecodeError{At: at, Object: id, Err: fmt.Errorf("strict decoding error: %w", errors.Join(findings...))}
	}
	for _, f := range findings {
		m.objs.Warnings = append(m.objs.Warnings, DecodeWarning{At: at, Object: id, Message: f.Error()})
	}
	return nil
}

// maxRewriteDepth bounds the nesting lastWins rewrites: each level it
// walks scans what it holds again, so that its cost is this many times the
// object's size at most. Kubernetes objects nest far less; a key repeated
// deeper keeps the JSON decoder's reading.
const maxRewriteDepth = 64

// isDuplicate reports a strict-decoding finding of a field given twice.
func isDuplicate(f error) bool { return strings.HasPrefix(f.Error(), "duplicate field ") }

// lastWins returns the JSON value d with every key given twice in an
// object kept once, with its last value, and the paths of the keys it
// dropped, rendered as the strict decoder renders them
// ("spec.template", "items[2].metadata"). A value it cannot walk, or
// nested deeper than maxRewriteDepth, is returned as it is, for the
// decoder to read or report.
func lastWins(d []byte) ([]byte, []string) {
	var dups []string
	var walk func(d []byte, path string, depth int) []byte
	walk = func(d []byte, path string, depth int) []byte {
		d = bytes.TrimSpace(d)
		if len(d) == 0 || depth > maxRewriteDepth {
			return d
		}
		join := func(key string) string {
			if path == "" {
				return key
			}
			return path + "." + key
		}
		switch d[0] {
		case '{':
			fs, err := fields(d)
			if err != nil {
				return d
			}
			last := make(map[string]int, len(fs))
			for i, f := range fs {
				if _, ok := last[f.key]; ok && !slices.Contains(dups, join(f.key)) {
					dups = append(dups, join(f.key))
				}
				last[f.key] = i
			}
			out := []byte{'{'}
			for i, f := range fs {
				if last[f.key] != i {
					continue
				}
				if len(out) > 1 {
					out = append(out, ',')
				}
				key, _ := json.Marshal(f.key)
				out = append(append(out, key...), ':')
				out = append(out, walk(f.value, join(f.key), depth+1)...)
			}
			return append(out, '}')
		case '[':
			out := []byte{'['}
			err := elements(d, func(i int, v []byte) error {
				if i > 0 {
					out = append(out, ',')
				}
				out = append(out, walk(v, path+"["+strconv.Itoa(i)+"]", depth+1)...)
				return nil
			})
			if err != nil {
				return d
			}
			return append(out, ']')
		}
		return d
	}
	out := walk(d, "", 0)
	return out, dups
}

// kruiseShell is the part of an OpenKruise DaemonSet the loader reads by
// apps/v1's rules: its metadata, decoded into the ObjectMeta an apps/v1
// DaemonSet's is decoded into. The rest is OpenKruise's, kept as found.
type kruiseShell struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            json.RawMessage   `json:"spec"`
	Status          json.RawMessage   `json:"status"`
}

// decodeKruise decodes the OpenKruise DaemonSet t into u: its fields as
// found, but its metadata as an apps/v1 DaemonSet's is read (one rule for
// both), so that the same input names the same namespace and name
// whichever the kind. A map would keep only the last of two metadata
// fields, and a null or numeric namespace as it is; ObjectMeta merges the
// two, as the API server's decoder does, and refuses what is not a string.
// The findings are those of an apps/v1 DaemonSet: fields given twice
// anywhere, unknown fields outside spec and status.
func decodeKruise(t []byte, u *unstructured.Unstructured) ([]error, error) {
	findings, err := sigsjson.UnmarshalStrict(t, &u.Object, sigsjson.DisallowDuplicateFields)
	if err != nil {
		return nil, err
	}
	if u.Object == nil {
		return nil, errors.New("not an object")
	}
	var shell kruiseShell
	unknown, err := sigsjson.UnmarshalStrict(t, &shell, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, err
	}
	meta, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&shell.Metadata)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	u.Object["metadata"] = meta
	return append(findings, unknown...), nil
}

// typeError renders a value of the wrong type as a field error: the field
// path, what it wants and what it found (`metadata.namespace: want string,
// found number`), rather than as Go's decoder names Go's types.
func typeError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" || te.Type == nil {
		return err
	}
	return &fieldTypeError{te}
}

// fieldTypeError is a *json.UnmarshalTypeError rendered as a field error.
type fieldTypeError struct{ *json.UnmarshalTypeError }

func (e *fieldTypeError) Error() string {
	return fmt.Sprintf("%s: want %s, found %s", e.Field, e.Type, e.Value)
}

func (e *fieldTypeError) Unwrap() error { return e.UnmarshalTypeError }

// same reports two copies of one object with the same content.
func same(a, b any) bool {
	if ua, ok := a.(*unstructured.Unstructured); ok {
		ub, ok := b.(*unstructured.Unstructured)
		return ok && equality.Semantic.DeepEqual(ua.Object, ub.Object)
	}
	return equality.Semantic.DeepEqual(a, b)
}

// identity returns the key that makes two objects the same object (kind,
// namespace and name; the namespace of a cluster-scoped kind, a node's,
// does not count) and the UID.
func identity(kind string, meta metav1.Object) (key, uid string) {
	ns := meta.GetNamespace()
	if !namespaced(kind) {
		ns = ""
	}
	return kind + "\x00" + ns + "\x00" + meta.GetName(), string(meta.GetUID())
}

// count returns how many objects of kind are kept.
func (m *merger) count(kind string) int {
	switch kind {
	case "DaemonSet":
		return len(m.objs.DaemonSets)
	case "ControllerRevision":
		return len(m.objs.Revisions)
	case "Node":
		return len(m.objs.Nodes)
	case "Kruise":
		return len(m.objs.Kruise)
	case "LimitRange":
		return len(m.objs.LimitRanges)
	case "PriorityClass":
		return len(m.objs.PriorityClasses)
	case "RuntimeClass":
		return len(m.objs.RuntimeClasses)
	case "PodDisruptionBudget":
		return len(m.objs.PodDisruptionBudgets)
	default:
		return len(m.objs.Pods)
	}
}

// object returns the object r refers to.
func (m *merger) object(r ref) any {
	switch r.kind {
	case "DaemonSet":
		return m.objs.DaemonSets[r.index]
	case "ControllerRevision":
		return m.objs.Revisions[r.index]
	case "Node":
		return m.objs.Nodes[r.index]
	case "Kruise":
		return m.objs.Kruise[r.index]
	case "LimitRange":
		return m.objs.LimitRanges[r.index]
	case "PriorityClass":
		return m.objs.PriorityClasses[r.index]
	case "RuntimeClass":
		return m.objs.RuntimeClasses[r.index]
	case "PodDisruptionBudget":
		return m.objs.PodDisruptionBudgets[r.index]
	default:
		return m.objs.Pods[r.index]
	}
}

// position returns where the object r refers to was found.
func (m *merger) position(r ref) Position {
	switch r.kind {
	case "DaemonSet":
		return m.objs.At.DaemonSets[r.index]
	case "ControllerRevision":
		return m.objs.At.Revisions[r.index]
	case "Node":
		return m.objs.At.Nodes[r.index]
	case "Kruise":
		return m.objs.At.Kruise[r.index]
	case "LimitRange":
		return m.objs.At.LimitRanges[r.index]
	case "PriorityClass":
		return m.objs.At.PriorityClasses[r.index]
	case "RuntimeClass":
		return m.objs.At.RuntimeClasses[r.index]
	case "PodDisruptionBudget":
		return m.objs.At.PodDisruptionBudgets[r.index]
	default:
		return m.objs.At.Pods[r.index]
	}
}

// Merge returns the objects of every o, in order, as one Objects, with
// their positions. Objects are shared, not copied, and not compared: an
// object given twice is kept twice (Snapshot then reports two DaemonSets of
// the same name, and the planner refuses a pod listed twice). Sources reads
// several inputs as kubectl does instead, keeping identical copies once and
// refusing conflicting ones.
func Merge(objs ...*Objects) *Objects {
	out := &Objects{}
	for _, o := range objs {
		if o == nil {
			continue
		}
		out.DaemonSets = append(out.DaemonSets, o.DaemonSets...)
		out.Nodes = append(out.Nodes, o.Nodes...)
		out.Pods = append(out.Pods, o.Pods...)
		out.Revisions = append(out.Revisions, o.Revisions...)
		out.Kruise = append(out.Kruise, o.Kruise...)
		out.Ignored = append(out.Ignored, o.Ignored...)
		out.Warnings = append(out.Warnings, o.Warnings...)
		out.At.Kruise = append(out.At.Kruise, o.At.Kruise...)
		out.At.DaemonSets = append(out.At.DaemonSets, o.At.DaemonSets...)
		out.At.Nodes = append(out.At.Nodes, o.At.Nodes...)
		out.At.Pods = append(out.At.Pods, o.At.Pods...)
		out.At.Revisions = append(out.At.Revisions, o.At.Revisions...)
		out.LimitRanges = append(out.LimitRanges, o.LimitRanges...)
		out.PriorityClasses = append(out.PriorityClasses, o.PriorityClasses...)
		out.RuntimeClasses = append(out.RuntimeClasses, o.RuntimeClasses...)
		out.PodDisruptionBudgets = append(out.PodDisruptionBudgets, o.PodDisruptionBudgets...)
		out.At.LimitRanges = append(out.At.LimitRanges, o.At.LimitRanges...)
		out.At.PriorityClasses = append(out.At.PriorityClasses, o.At.PriorityClasses...)
		out.At.RuntimeClasses = append(out.At.RuntimeClasses, o.At.RuntimeClasses...)
		out.At.PodDisruptionBudgets = append(out.At.PodDisruptionBudgets, o.At.PodDisruptionBudgets...)
	}
	return out
}
