// Package yamlcost measures what a YAML document's aliases make a decoder
// build, before any decoder builds it.
//
// A YAML alias repeats the anchored value wherever it appears, and the
// decoders that turn YAML into JSON (sigs.k8s.io/yaml) copy that value out
// at every alias. Their own guard counts nodes, so one long string aliased
// a few thousand times passes it: 135 KB of YAML became 300 MB of JSON.
// AliasBytes walks the document's node tree once, where every alias is a
// pointer to its anchor, and adds up what the aliases would copy, so that a
// caller refuses the document while it is still small.
package yamlcost

import (
	"bytes"
	"errors"

	yaml "go.yaml.in/yaml/v3"
)

// ErrSelfAlias reports an anchored value that holds an alias to itself,
// which no decoder can expand.
var ErrSelfAlias = errors.New("an anchored value holds an alias to itself")

// AliasBytes returns the bytes the aliases of the YAML document doc add to
// it once expanded, or, when that is more than limit, a value above limit
// (the walk stops counting there). A document that cannot hold an alias
// costs nothing to check.
//
// The measure counts every scalar (a key or a value) as its length plus
// one, and every mapping and sequence as one byte plus what it holds, so
// that empty values repeated a billion times count too; an alias counts
// what its anchored value holds, aliases inside it expanded. A value
// repeated without aliases costs its own bytes in the document and is not
// counted.
func AliasBytes(doc []byte, limit int64) (int64, error) {
	if !mayAlias(doc) {
		return 0, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return 0, err
	}
	w := walker{limit: limit, size: map[*yaml.Node]int64{}, open: map[*yaml.Node]bool{}}
	added, err := w.added(&root)
	if err != nil {
		return 0, err
	}
	return added, nil
}

// walker measures one document. size memoizes the expanded size of each
// anchored value, so that each is measured once however often it is
// aliased; open holds the anchored values being measured, to find one
// that holds an alias to itself.
type walker struct {
	limit int64
	size  map[*yaml.Node]int64
	open  map[*yaml.Node]bool
}

// added returns what the aliases under n add.
func (w *walker) added(n *yaml.Node) (int64, error) {
	if n.Kind == yaml.AliasNode {
		return w.expanded(n.Alias)
	}
	var sum int64
	for _, c := range n.Content {
		a, err := w.added(c)
		if err != nil {
			return 0, err
		}
		if sum = w.add(sum, a); sum > w.limit {
			return sum, nil
		}
	}
	return sum, nil
}

// expanded returns the size of n with its aliases expanded.
func (w *walker) expanded(n *yaml.Node) (int64, error) {
	if n == nil {
		return 0, nil
	}
	if n.Kind == yaml.AliasNode {
		return w.expanded(n.Alias)
	}
	if s, ok := w.size[n]; ok {
		return s, nil
	}
	if w.open[n] {
		return 0, ErrSelfAlias
	}
	w.open[n] = true
	defer delete(w.open, n)
	s := int64(len(n.Value)) + 1
	for _, c := range n.Content {
		e, err := w.expanded(c)
		if err != nil {
			return 0, err
		}
		if s = w.add(s, e); s > w.limit {
			break
		}
	}
	if n.Anchor != "" {
		w.size[n] = s
	}
	return s, nil
}

// add adds two sizes, saturating just above the limit, so that no sum of
// sizes can overflow.
func (w *walker) add(a, b int64) int64 {
	if a > w.limit || b > w.limit || a+b > w.limit {
		return w.limit + 1
	}
	return a + b
}

// mayAlias reports whether doc may hold an anchor and an alias: a '&' and
// a '*' each at the start of a node (after a space, a line break, a flow
// indicator or a colon, and followed by a name). A kubectl dump holds neither, so the
// node tree is built only for documents that may need it; a false
// positive (a quoted "a *b") only costs that.
func mayAlias(doc []byte) bool {
	return hasToken(doc, '&') && hasToken(doc, '*')
}

func hasToken(doc []byte, c byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(doc[i:], c)
		if j < 0 {
			return false
		}
		i += j
		before := i == 0 || isBoundary(doc[i-1]) || doc[i-1] == ':'
		after := i+1 < len(doc) && !isBoundary(doc[i+1])
		if before && after {
			return true
		}
		i++
	}
}

// isBoundary reports the bytes that end a YAML token: white space and the
// flow indicators.
func isBoundary(b byte) bool {
	switch b {
	case ' ', '\t', '\r', '\n', ',', '[', ']', '{', '}':
		return true
	}
	return false
}
