package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
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
)

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

// Error is a problem with one document or object of the input.
type Error struct {
	At Position
	// Object names the object as "apiVersion kind namespace/name" when it
	// is known.
	Object string
	Err    error
}

func (e *Error) Error() string {
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
func (e *Error) Unwrap() error {
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
	// Ignored names the objects of other kinds, as "apiVersion kind
	// namespace/name", each once, for callers that want to warn about them.
	Ignored []string
	// At holds where each object was found (its first copy): At.Pods[i] is
	// the position of Pods[i].
	At Positions
}

// Positions are the positions of the objects of Objects, list by list.
type Positions struct {
	DaemonSets, Nodes, Pods, Revisions []Position
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

// Decode reads every object of one unnamed JSON or YAML stream: it is
// Sources with a single Source without a name.
func Decode(r io.Reader) (*Objects, error) {
	return Sources(Source{R: r})
}

// Sources reads every source in order, as `kubectl get -f a -f b` reads
// several files, and merges what they hold (see the package documentation).
// It fails on malformed input, invalid UTF-8 and conflicting copies of an
// object, with an *Error naming the source, document and item; it never
// panics.
func Sources(srcs ...Source) (*Objects, error) {
	m := &merger{objs: &Objects{}, byKey: map[string]ref{}, byUID: map[string]ref{}, ignored: map[string]bool{}}
	for _, src := range srcs {
		if src.R == nil {
			return nil, fmt.Errorf("load: %s: no reader", orStdin(src.Name))
		}
		data, err := io.ReadAll(src.R)
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
	return m.objs, nil
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
	// byKey maps kind, namespace and name to the object; byUID maps a
	// non-empty UID to it.
	byKey map[string]ref
	byUID map[string]ref
	// ignored holds the names in objs.Ignored, which lists each once.
	ignored map[string]bool
}

// ref is one object already kept.
type ref struct {
	kind  string
	index int // into the kind's list in objs
	id    string
}

func (m *merger) decodeJSONStream(src string, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		at := Position{Source: src, Doc: doc}
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &Error{At: at, Err: err}
		}
		if err := m.add(raw, at, "", "", 0); err != nil {
			return err
		}
	}
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
			return &Error{At: at, Err: err}
		}
		if i := invalidUTF8(chunk); i >= 0 {
			line := 1 + bytes.Count(chunk[:i], []byte("\n"))
			return &Error{At: at, Err: fmt.Errorf("%w at line %d of the document", ErrInvalidUTF8, line)}
		}
		// Strict conversion refuses a key repeated in one mapping, which
		// would silently keep only its last value: two Lists concatenated
		// without a "---" between them would lose the first one's items.
		raw, err := yaml.YAMLToJSONStrict(chunk)
		if err != nil {
			return &Error{At: at, Err: fmt.Errorf("%w (several documents concatenated without \"---\" between them?)", err)}
		}
		if isNull(raw) {
			continue // an empty document, e.g. after a trailing "---"
		}
		if err := m.add(raw, at, "", "", 0); err != nil {
			return err
		}
	}
}

// unmarshal decodes JSON into a typed v as the API server does (field
// names case-sensitive, integers kept), and refuses a field given twice,
// as the API server's strict field validation does: plain decoding would
// keep the last value silently (YAML input is refused for it already, by
// its strict conversion).
func unmarshal(data []byte, v any) error {
	strict, err := sigsjson.UnmarshalStrict(data, v, sigsjson.DisallowDuplicateFields)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return strict[0]
	}
	return nil
}

// invalidUTF8 returns the offset of the first byte of b that is not valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
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

// header is the part of an object that classifies it.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		UID       string `json:"uid"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// add decodes one JSON value found at at. defAPIVersion and defKind apply
// to items of a typed list (NodeList), whose items the API server prints
// without apiVersion and kind.
func (m *merger) add(raw []byte, at Position, defAPIVersion, defKind string, depth int) error {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) > 0 && t[0] == '[' {
		if depth >= maxListDepth {
			return &Error{At: at, Err: errors.New("lists nested too deeply")}
		}
		var items []json.RawMessage
		if err := utiljson.Unmarshal(t, &items); err != nil {
			return &Error{At: at, Err: err}
		}
		return m.addItems(items, at, defAPIVersion, defKind, depth)
	}
	if len(t) == 0 || t[0] != '{' {
		return &Error{At: at, Err: errors.New("not an object")}
	}
	var h header
	if err := unmarshal(t, &h); err != nil {
		return &Error{At: at, Err: err}
	}
	if h.APIVersion == "" {
		h.APIVersion = defAPIVersion
	}
	if h.Kind == "" {
		h.Kind = defKind
	}
	if h.Kind == "" || h.APIVersion == "" {
		return &Error{At: at, Err: errors.New("object without apiVersion or kind")}
	}
	if strings.HasSuffix(h.Kind, "List") && h.Metadata.Name == "" {
		if depth >= maxListDepth {
			return &Error{At: at, Err: errors.New("lists nested too deeply")}
		}
		itemKind := ""
		if h.Kind != "List" {
			itemKind = strings.TrimSuffix(h.Kind, "List")
		}
		return m.addItems(h.Items, at, h.APIVersion, itemKind, depth)
	}

	id := h.APIVersion + " " + h.Kind + " " + qualified(h.Metadata.Namespace, h.Metadata.Name)
	group := h.APIVersion
	if i := strings.LastIndexByte(group, '/'); i >= 0 {
		group = group[:i]
	} else {
		group = ""
	}
	var want string
	switch {
	case h.Kind == "DaemonSet" && (group == "apps" || group == "extensions"):
		want = "apps/v1"
	case h.Kind == "ControllerRevision" && group == "apps":
		want = "apps/v1"
	case h.Kind == "Node" && group == "":
		want = "v1"
	case h.Kind == "Pod" && group == "":
		want = "v1"
	default:
		if !m.ignored[id] {
			m.ignored[id] = true
			m.objs.Ignored = append(m.objs.Ignored, id)
		}
		return nil
	}
	fail := func(err error) error { return &Error{At: at, Object: id, Err: err} }
	if h.APIVersion != want {
		return fail(fmt.Errorf("unsupported apiVersion, want %s", want))
	}
	// Decoding replaces invalid UTF-8 with U+FFFD, which would make
	// different names equal: refuse both.
	if i := invalidUTF8(t); i >= 0 {
		return fail(fmt.Errorf("%w at byte %d of the object", ErrInvalidUTF8, i))
	}
	for _, f := range []struct{ field, value string }{
		{"metadata.name", h.Metadata.Name}, {"metadata.namespace", h.Metadata.Namespace}, {"metadata.uid", h.Metadata.UID},
	} {
		if strings.ContainsRune(f.value, utf8.RuneError) {
			return fail(fmt.Errorf("%w: %s %q holds U+FFFD", ErrInvalidUTF8, f.field, f.value))
		}
	}

	var obj any
	switch h.Kind {
	case "DaemonSet":
		obj = &appsv1.DaemonSet{}
	case "ControllerRevision":
		obj = &appsv1.ControllerRevision{}
	case "Node":
		obj = &corev1.Node{}
	default:
		obj = &corev1.Pod{}
	}
	if err := unmarshal(t, obj); err != nil {
		return fail(err)
	}
	key, uid := identity(obj)
	if prev, ok := m.byKey[key]; ok {
		if equality.Semantic.DeepEqual(m.object(prev), obj) {
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
	r := ref{kind: h.Kind, index: m.count(h.Kind), id: id}
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
	}
	return nil
}

// identity returns the key that makes two objects the same object (kind,
// namespace and name; a node's namespace does not count) and the UID.
func identity(obj any) (key, uid string) {
	switch v := obj.(type) {
	case *appsv1.DaemonSet:
		return "DaemonSet\x00" + v.Namespace + "\x00" + v.Name, string(v.UID)
	case *appsv1.ControllerRevision:
		return "ControllerRevision\x00" + v.Namespace + "\x00" + v.Name, string(v.UID)
	case *corev1.Node:
		return "Node\x00\x00" + v.Name, string(v.UID)
	case *corev1.Pod:
		return "Pod\x00" + v.Namespace + "\x00" + v.Name, string(v.UID)
	}
	return "", ""
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
	default:
		return m.objs.At.Pods[r.index]
	}
}

func (m *merger) addItems(items []json.RawMessage, at Position, apiVersion, kind string, depth int) error {
	for i, item := range items {
		if err := m.add(item, at.item(i), apiVersion, kind, depth+1); err != nil {
			return err
		}
	}
	return nil
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
		out.Ignored = append(out.Ignored, o.Ignored...)
		out.At.DaemonSets = append(out.At.DaemonSets, o.At.DaemonSets...)
		out.At.Nodes = append(out.At.Nodes, o.At.Nodes...)
		out.At.Pods = append(out.At.Pods, o.At.Pods...)
		out.At.Revisions = append(out.At.Revisions, o.At.Revisions...)
	}
	return out
}
