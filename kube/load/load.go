package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Errors returned by Read and Objects.Cluster; test with errors.Is.
var (
	// ErrNoDaemonSet reports input without the DaemonSet asked for.
	ErrNoDaemonSet = errors.New("load: no DaemonSet in input")
	// ErrManyDaemonSets reports input with several DaemonSets when none
	// was named.
	ErrManyDaemonSets = errors.New("load: more than one DaemonSet in input")
)

// maxListDepth bounds Lists nested in Lists, so that hostile input cannot
// exhaust the stack.
const maxListDepth = 8

// Objects is everything Decode found, in input order.
type Objects struct {
	DaemonSets []*appsv1.DaemonSet
	Nodes      []*corev1.Node
	Pods       []*corev1.Pod
	Revisions  []*appsv1.ControllerRevision
	// Ignored names the objects of other kinds, as "apiVersion kind
	// namespace/name", for callers that want to warn about them.
	Ignored []string
}

// Cluster is the input of one sync: one DaemonSet and the nodes, pods and
// ControllerRevisions around it. Pods and revisions are not filtered: the
// planner decides which ones the DaemonSet owns.
type Cluster struct {
	DaemonSet *appsv1.DaemonSet
	Nodes     []*corev1.Node
	Pods      []*corev1.Pod
	Revisions []*appsv1.ControllerRevision
	Ignored   []string
}

// Read decodes r like Decode and requires exactly one DaemonSet.
func Read(r io.Reader) (*Cluster, error) {
	objs, err := Decode(r)
	if err != nil {
		return nil, err
	}
	return objs.Cluster("", "")
}

// Cluster picks the DaemonSet namespace/name. With an empty name it picks
// the only DaemonSet and fails with ErrManyDaemonSets if there are several;
// an empty namespace matches any namespace. The returned Cluster shares the
// objects (not copies) with o.
func (o *Objects) Cluster(namespace, name string) (*Cluster, error) {
	var found []*appsv1.DaemonSet
	for _, ds := range o.DaemonSets {
		if (namespace == "" || ds.Namespace == namespace) && (name == "" || ds.Name == name) {
			found = append(found, ds)
		}
	}
	switch {
	case len(found) == 0 && name == "":
		return nil, ErrNoDaemonSet
	case len(found) == 0:
		return nil, fmt.Errorf("%w: %s", ErrNoDaemonSet, qualified(namespace, name))
	case len(found) > 1:
		names := make([]string, len(found))
		for i, ds := range found {
			names[i] = ds.Namespace + "/" + ds.Name
		}
		return nil, fmt.Errorf("%w: %s", ErrManyDaemonSets, strings.Join(names, ", "))
	}
	return &Cluster{
		DaemonSet: found[0],
		Nodes:     o.Nodes,
		Pods:      o.Pods,
		Revisions: o.Revisions,
		Ignored:   o.Ignored,
	}, nil
}

func qualified(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Decode reads every object of a JSON or YAML stream (see the package
// documentation). It fails on malformed input, naming the document and
// item; it never panics.
func Decode(r io.Reader) (*Objects, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("load: reading input: %w", err)
	}
	objs := &Objects{}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		err = objs.decodeJSONStream(trimmed)
	} else {
		err = objs.decodeYAMLStream(data)
	}
	if err != nil {
		return nil, err
	}
	return objs, nil
}

func (o *Objects) decodeJSONStream(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("load: JSON value %d: %w", doc, err)
		}
		if err := o.add(raw, fmt.Sprintf("JSON value %d", doc), "", "", 0); err != nil {
			return err
		}
	}
}

func (o *Objects) decodeYAMLStream(data []byte) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		chunk, err := reader.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("load: YAML document %d: %w", doc, err)
		}
		raw, err := utilyaml.ToJSON(chunk)
		if err != nil {
			return fmt.Errorf("load: YAML document %d: %w", doc, err)
		}
		if isNull(raw) {
			continue // an empty document, e.g. after a trailing "---"
		}
		if err := o.add(raw, fmt.Sprintf("YAML document %d", doc), "", "", 0); err != nil {
			return err
		}
	}
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
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// add decodes one JSON value found at where. defAPIVersion and defKind
// apply to items of a typed list (NodeList), whose items the API server
// prints without apiVersion and kind.
func (o *Objects) add(raw []byte, where, defAPIVersion, defKind string, depth int) error {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) > 0 && t[0] == '[' {
		if depth >= maxListDepth {
			return fmt.Errorf("load: %s: lists nested too deeply", where)
		}
		var items []json.RawMessage
		if err := utiljson.Unmarshal(t, &items); err != nil {
			return fmt.Errorf("load: %s: %w", where, err)
		}
		return o.addItems(items, where, defAPIVersion, defKind, depth)
	}
	if len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("load: %s: not an object", where)
	}
	var h header
	if err := utiljson.Unmarshal(t, &h); err != nil {
		return fmt.Errorf("load: %s: %w", where, err)
	}
	if h.APIVersion == "" {
		h.APIVersion = defAPIVersion
	}
	if h.Kind == "" {
		h.Kind = defKind
	}
	if h.Kind == "" || h.APIVersion == "" {
		return fmt.Errorf("load: %s: object without apiVersion or kind", where)
	}
	if strings.HasSuffix(h.Kind, "List") && h.Metadata.Name == "" {
		if depth >= maxListDepth {
			return fmt.Errorf("load: %s: lists nested too deeply", where)
		}
		itemKind := ""
		if h.Kind != "List" {
			itemKind = strings.TrimSuffix(h.Kind, "List")
		}
		return o.addItems(h.Items, where, h.APIVersion, itemKind, depth)
	}

	id := h.APIVersion + " " + h.Kind + " " + qualified(h.Metadata.Namespace, h.Metadata.Name)
	group := h.APIVersion
	if i := strings.LastIndexByte(group, '/'); i >= 0 {
		group = group[:i]
	} else {
		group = ""
	}
	var want string
	var err error
	switch {
	case h.Kind == "DaemonSet" && (group == "apps" || group == "extensions"):
		want = "apps/v1"
		if h.APIVersion == want {
			ds := &appsv1.DaemonSet{}
			err = utiljson.Unmarshal(t, ds)
			o.DaemonSets = append(o.DaemonSets, ds)
		}
	case h.Kind == "ControllerRevision" && group == "apps":
		want = "apps/v1"
		if h.APIVersion == want {
			cr := &appsv1.ControllerRevision{}
			err = utiljson.Unmarshal(t, cr)
			o.Revisions = append(o.Revisions, cr)
		}
	case h.Kind == "Node" && group == "":
		want = "v1"
		if h.APIVersion == want {
			n := &corev1.Node{}
			err = utiljson.Unmarshal(t, n)
			o.Nodes = append(o.Nodes, n)
		}
	case h.Kind == "Pod" && group == "":
		want = "v1"
		if h.APIVersion == want {
			p := &corev1.Pod{}
			err = utiljson.Unmarshal(t, p)
			o.Pods = append(o.Pods, p)
		}
	default:
		o.Ignored = append(o.Ignored, id)
		return nil
	}
	if h.APIVersion != want {
		return fmt.Errorf("load: %s (%s): unsupported apiVersion, want %s", where, id, want)
	}
	if err != nil {
		return fmt.Errorf("load: %s (%s): %w", where, id, err)
	}
	return nil
}

func (o *Objects) addItems(items []json.RawMessage, where, apiVersion, kind string, depth int) error {
	for i, item := range items {
		if err := o.add(item, fmt.Sprintf("%s, items[%d]", where, i), apiVersion, kind, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// Merge returns the objects of every o, in order, as one Objects: what
// kubectl does with several -f sources. Objects are shared, not copied; an
// object given twice is kept twice (Cluster then reports two DaemonSets of
// the same name, and the planner sees a duplicate pod).
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
	}
	return out
}
