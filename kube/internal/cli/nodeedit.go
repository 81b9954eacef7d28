package cli

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/daemonplan/daemonplan/kube/load"
)

// The node edits of "diff": --node-file, --remove-node, and --label and
// --taint in kubectl's own syntax, prefixed with the nodes they apply to.

// editNodes applies --node-file, --remove-node, --label and --taint to
// cl's nodes, copying each node it changes, and returns the edits as
// flags. A node an edit names must be there.
func (c *cli) editNodes(cl *load.Snapshot, o *diffOptions) ([]string, error) {
	nodes := slices.Clone(cl.Nodes)
	at := slices.Clone(cl.At.Nodes)
	for len(at) < len(nodes) {
		at = append(at, load.Position{})
	}
	index := func(name string) int {
		return slices.IndexFunc(nodes, func(n *corev1.Node) bool { return n.Name == name })
	}
	var edits []string
	for _, file := range o.nodeFiles {
		objs, _, src, err := c.read("diff", []string{file})
		if err != nil {
			return nil, err
		}
		if len(objs.Nodes) == 0 {
			return nil, c.fail("diff: --node-file %s: no Node in it", src)
		}
		for j, n := range objs.Nodes {
			var pos load.Position
			if j < len(objs.At.Nodes) {
				pos = objs.At.Nodes[j]
			}
			if i := index(n.Name); i >= 0 {
				nodes[i], at[i] = n, pos
			} else {
				nodes, at = append(nodes, n), append(at, pos)
			}
		}
		edits = append(edits, "--node-file "+file)
	}
	removed := map[string]bool{}
	unknown := func(flag, value, name string) error {
		if removed[name] {
			return c.fail("diff: %s %q: node %q is removed by --remove-node", flag, value, name)
		}
		return c.fail("diff: %s %q: node %q is not in the input (%d nodes)", flag, value, name, len(nodes))
	}
	for _, names := range o.removes {
		for _, name := range names {
			i := index(name)
			if i < 0 {
				return nil, unknown("--remove-node", names.String(), name)
			}
			nodes, at = slices.Delete(nodes, i, i+1), slices.Delete(at, i, i+1)
			removed[name] = true
		}
		edits = append(edits, "--remove-node "+names.String())
	}
	owned := map[int]bool{} // nodes already copied
	own := func(i int) *corev1.Node {
		if !owned[i] {
			nodes[i] = nodes[i].DeepCopy()
			owned[i] = true
		}
		return nodes[i]
	}
	for _, e := range o.labels {
		for _, name := range e.Nodes {
			i := index(name)
			if i < 0 {
				return nil, unknown("--label", e.String(), name)
			}
			if applyLabel(own(i), e) {
				fmt.Fprintf(c.stderr, "%s: diff: --label %q: node %q has no label %q (as kubectl label, nothing to remove)\n", c.name, e.String(), name, e.Key)
			}
		}
		edits = append(edits, "--label "+e.String())
	}
	for _, e := range o.taints {
		for _, name := range e.Nodes {
			i := index(name)
			if i < 0 {
				return nil, unknown("--taint", e.String(), name)
			}
			if err := applyTaint(own(i), e); err != nil {
				return nil, c.fail("diff: --taint %q: %v", e.String(), err)
			}
		}
		edits = append(edits, "--taint "+e.String())
	}
	cl.Nodes, cl.At.Nodes = nodes, at
	return edits, nil
}

// labelEdit is one --label NODE[,NODE...]:KEY=VALUE (set) or
// NODE[,NODE...]:KEY- (remove), as 'kubectl label node NODE KEY=VALUE
// --overwrite' and 'kubectl label node NODE KEY-'.
type labelEdit struct {
	Nodes      []string
	Key, Value string
	Remove     bool
}

// parseLabelEdit parses s. Node names come before the first ':' (neither
// node names, label keys nor label values hold one); the key must be a
// qualified name and the value a label value, as the API server requires.
func parseLabelEdit(s string) (labelEdit, error) {
	nodes, spec, err := splitNodes(s)
	if err != nil {
		return labelEdit{}, err
	}
	e := labelEdit{Nodes: nodes}
	if key, ok := strings.CutSuffix(spec, "-"); ok && !strings.Contains(spec, "=") {
		e.Key, e.Remove = key, true
	} else {
		key, value, ok := strings.Cut(spec, "=")
		if !ok {
			return labelEdit{}, fmt.Errorf("%q: want NODE:KEY=VALUE or NODE:KEY- (remove)", s)
		}
		e.Key, e.Value = key, value
		if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
			return labelEdit{}, fmt.Errorf("%q: label value %q: %s", s, value, strings.Join(errs, "; "))
		}
	}
	if errs := validation.IsQualifiedName(e.Key); len(errs) > 0 {
		return labelEdit{}, fmt.Errorf("%q: label key %q: %s", s, e.Key, strings.Join(errs, "; "))
	}
	return e, nil
}

// String renders the edit as its flag value; parseLabelEdit reads it back.
func (e labelEdit) String() string {
	if e.Remove {
		return strings.Join(e.Nodes, ",") + ":" + e.Key + "-"
	}
	return strings.Join(e.Nodes, ",") + ":" + e.Key + "=" + e.Value
}

// taintEdit is one --taint NODE[,NODE...]:TAINT in kubectl taint's
// syntax: KEY[=VALUE]:EFFECT adds the taint (replacing the value of a
// taint with the same key and effect), KEY[=VALUE]:EFFECT- removes the
// taint with that key and effect, KEY- every taint with that key.
type taintEdit struct {
	Nodes      []string
	Key, Value string
	// Effect is empty only for KEY-.
	Effect corev1.TaintEffect
	Remove bool
}

var effects = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}

func parseTaintEdit(s string) (taintEdit, error) {
	nodes, spec, err := splitNodes(s)
	if err != nil {
		return taintEdit{}, err
	}
	e := taintEdit{Nodes: nodes}
	spec, e.Remove = strings.CutSuffix(spec, "-")
	kv, effect, hasEffect := strings.Cut(spec, ":")
	switch {
	case hasEffect:
		e.Effect = corev1.TaintEffect(effect)
		if !slices.Contains(effects, e.Effect) {
			return taintEdit{}, fmt.Errorf("%q: taint effect %q: want NoSchedule, PreferNoSchedule or NoExecute", s, effect)
		}
	case !e.Remove:
		return taintEdit{}, fmt.Errorf("%q: want NODE:KEY[=VALUE]:EFFECT, NODE:KEY[=VALUE]:EFFECT- or NODE:KEY- (remove)", s)
	}
	key, value, hasValue := strings.Cut(kv, "=")
	if hasValue && !hasEffect {
		return taintEdit{}, fmt.Errorf("%q: removing by KEY=VALUE needs an effect: NODE:KEY=VALUE:EFFECT- or NODE:KEY-", s)
	}
	e.Key, e.Value = key, value
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return taintEdit{}, fmt.Errorf("%q: taint key %q: %s", s, key, strings.Join(errs, "; "))
	}
	if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
		return taintEdit{}, fmt.Errorf("%q: taint value %q: %s", s, value, strings.Join(errs, "; "))
	}
	return e, nil
}

// String renders the edit as its flag value; parseTaintEdit reads it back.
func (e taintEdit) String() string {
	s := strings.Join(e.Nodes, ",") + ":" + e.Key
	if e.Value != "" {
		s += "=" + e.Value
	}
	if e.Effect != "" {
		s += ":" + string(e.Effect)
	}
	if e.Remove {
		s += "-"
	}
	return s
}

// splitNodes splits "NODE[,NODE...]:REST" at the first ':'. Every node
// name must be non-empty; a name given twice is kept once.
func splitNodes(s string) ([]string, string, error) {
	list, rest, ok := strings.Cut(s, ":")
	if !ok || list == "" {
		return nil, "", fmt.Errorf("%q: want NODE[,NODE...]:EDIT", s)
	}
	var nodes []string
	for _, n := range strings.Split(list, ",") {
		if n == "" {
			return nil, "", fmt.Errorf("%q: empty node name in %q", s, list)
		}
		if !slices.Contains(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	return nodes, rest, nil
}

// splitNames splits a --remove-node value, a comma list of node names.
func splitNames(s string) ([]string, error) {
	var names []string
	for _, n := range strings.Split(s, ",") {
		if n == "" {
			return nil, fmt.Errorf("%q: empty node name", s)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// editFlag is a repeatable flag whose values parse into edits.
type editFlag[E fmt.Stringer] struct {
	edits *[]E
	parse func(string) (E, error)
	typ   string
}

func (f editFlag[E]) String() string {
	if f.edits == nil {
		return ""
	}
	parts := make([]string, len(*f.edits))
	for i, e := range *f.edits {
		parts[i] = e.String()
	}
	return strings.Join(parts, " ")
}

func (f editFlag[E]) Set(s string) error {
	e, err := f.parse(s)
	if err != nil {
		return err
	}
	*f.edits = append(*f.edits, e)
	return nil
}

func (f editFlag[E]) Type() string { return f.typ }

// nodeNames is a --remove-node value.
type nodeNames []string

func (n nodeNames) String() string { return strings.Join(n, ",") }

func parseNodeNames(s string) (nodeNames, error) { return splitNames(s) }

// applyLabel applies e to n, a copy the caller owns; it reports whether a
// removed key was absent (kubectl then says "label not found" and goes on).
func applyLabel(n *corev1.Node, e labelEdit) (missing bool) {
	if e.Remove {
		if _, ok := n.Labels[e.Key]; !ok {
			return true
		}
		delete(n.Labels, e.Key)
		return false
	}
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels[e.Key] = e.Value
	return false
}

// applyTaint applies e to n, a copy the caller owns, as kubectl taint
// --overwrite does; removing a taint the node does not have is an error,
// as kubectl's.
func applyTaint(n *corev1.Node, e taintEdit) error {
	ts := n.Spec.Taints
	if e.Remove {
		kept := ts[:0:0]
		for _, t := range ts {
			if t.Key == e.Key && (e.Effect == "" || t.Effect == e.Effect) {
				continue
			}
			kept = append(kept, t)
		}
		if len(kept) == len(ts) {
			what := e.Key
			if e.Effect != "" {
				what += ":" + string(e.Effect)
			}
			return fmt.Errorf("node %q has no taint %s", n.Name, what)
		}
		n.Spec.Taints = kept
		return nil
	}
	for i, t := range ts {
		if t.Key == e.Key && t.Effect == e.Effect {
			ts = slices.Clone(ts)
			ts[i].Value = e.Value
			n.Spec.Taints = ts
			return nil
		}
	}
	n.Spec.Taints = append(slices.Clone(ts), corev1.Taint{Key: e.Key, Value: e.Value, Effect: e.Effect})
	return nil
}
