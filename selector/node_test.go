package selector

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/field"
)

// Shorthands for building node selectors in tables.
func expr(key string, op Operator, values ...string) NodeSelectorRequirement {
	return NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func exprs(rs ...NodeSelectorRequirement) NodeSelectorTerm {
	return NodeSelectorTerm{MatchExpressions: rs}
}

func fields(rs ...NodeSelectorRequirement) NodeSelectorTerm {
	return NodeSelectorTerm{MatchFields: rs}
}

func terms(ts ...NodeSelectorTerm) *NodeSelector { return &NodeSelector{Terms: ts} }

// TestNodeSelectorMatch follows component-helpers' test of the same name:
// the strict errors of NewNodeSelector are NodeMatcher.ParseErrors here, and
// Match keeps matching with the well-formed terms.
func TestNodeSelectorMatch(t *testing.T) {
	tests := []struct {
		name     string
		reason   string
		ns       *NodeSelector
		nodeName string
		labels   labels
		wantErrs []errRow
		want     bool
	}{
		{
			name:   "nil node",
			reason: "upstream passes a nil node with an empty selector; here: a selector with no terms matches no node",
			ns:     &NodeSelector{},
			want:   false,
		},
		{
			name:   "invalid field selector and label selector",
			reason: "two values in matchFields and a key with a space are reported; the valid middle term still matches",
			ns: terms(
				fields(expr(NodeNameField, In, "host_1", "host_2")),
				NodeSelectorTerm{
					MatchExpressions: []NodeSelectorRequirement{expr("label_1", In, "label_1_val")},
					MatchFields:      []NodeSelectorRequirement{expr(NodeNameField, In, "host_1")},
				},
				exprs(expr("invalid key", In, "label_value")),
			),
			nodeName: "host_1",
			labels:   labels{"label_1": "label_1_val"},
			wantErrs: []errRow{
				{field.TypeInvalid, "nodeSelectorTerms[0].matchFields[0].values", []string{"host_1", "host_2"}},
				{field.TypeInvalid, "nodeSelectorTerms[2].matchExpressions[0].key", "invalid key"},
			},
			want: true,
		},
		{
			name:   "node matches field selector, but not labels",
			reason: "expressions and fields of one term are ANDed",
			ns: terms(NodeSelectorTerm{
				MatchExpressions: []NodeSelectorRequirement{expr("label_1", In, "label_1_val")},
				MatchFields:      []NodeSelectorRequirement{expr(NodeNameField, In, "host_1")},
			}),
			nodeName: "host_1",
			want:     false,
		},
		{
			name:   "node matches field selector and label selector",
			reason: "both parts of the term hold",
			ns: terms(NodeSelectorTerm{
				MatchExpressions: []NodeSelectorRequirement{expr("label_1", In, "label_1_val")},
				MatchFields:      []NodeSelectorRequirement{expr(NodeNameField, In, "host_1")},
			}),
			nodeName: "host_1",
			labels:   labels{"label_1": "label_1_val"},
			want:     true,
		},
		{
			name:     "second term matches",
			reason:   "terms are ORed",
			ns:       terms(exprs(expr("label_1", In, "label_1_val")), fields(expr(NodeNameField, In, "host_1"))),
			nodeName: "host_1",
			want:     true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := CompileNode(nil, tt.ns)
			if diff := cmp.Diff(tt.wantErrs, rows(m.ParseErrors())); diff != "" {
				t.Errorf("ParseErrors() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if got, _ := m.Match(tt.nodeName, tt.labels); got != tt.want {
				t.Errorf("Match(%q, %v) = %v, want %v (%s)", tt.nodeName, tt.labels, got, tt.want, tt.reason)
			}
		})
	}
}

// TestPodMatchesNodeSelectorAndAffinityTerms follows component-helpers' test
// of the same name (GetRequiredNodeAffinity(pod).Match(node)).
func TestPodMatchesNodeSelectorAndAffinityTerms(t *testing.T) {
	tests := []struct {
		name         string
		reason       string
		nodeSelector map[string]string
		required     *NodeSelector
		labels       labels
		nodeName     string
		want         bool
	}{
		{name: "no selector", reason: "no constraint at all", want: true},
		{name: "missing labels", reason: "the node lacks the nodeSelector key",
			nodeSelector: labels{"foo": "bar"}, want: false},
		{name: "same labels", reason: "exact match",
			nodeSelector: labels{"foo": "bar"}, labels: labels{"foo": "bar"}, want: true},
		{name: "node labels are superset", reason: "extra node labels are fine",
			nodeSelector: labels{"foo": "bar"}, labels: labels{"foo": "bar", "baz": "blah"}, want: true},
		{name: "node labels are subset", reason: "every nodeSelector key is needed",
			nodeSelector: labels{"foo": "bar", "baz": "blah"}, labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with matchExpressions using In operator that matches the existing node", reason: "In",
			required: terms(exprs(expr("foo", In, "bar", "value2"))), labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with matchExpressions using Gt operator that matches the existing node", reason: "Gt reads 0206 and 0204 as integers",
			required: terms(exprs(expr("kernel-version", Gt, "0204"))), labels: labels{"kernel-version": "0206"}, want: true},
		{name: "Pod with matchExpressions using NotIn operator that matches the existing node", reason: "NotIn",
			required: terms(exprs(expr("mem-type", NotIn, "DDR", "DDR2"))), labels: labels{"mem-type": "DDR3"}, want: true},
		{name: "Pod with matchExpressions using Exists operator that matches the existing node", reason: "Exists",
			required: terms(exprs(expr("GPU", Exists))), labels: labels{"GPU": "NVIDIA-GRID-K1"}, want: true},
		{name: "Pod with affinity that don't match node's labels won't schedule onto the node", reason: "In with other values",
			required: terms(exprs(expr("foo", In, "value1", "value2"))), labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
			reason: "a non-nil required selector with nil terms matches nothing", required: &NodeSelector{Terms: nil},
			labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
			reason: "an empty term list matches nothing", required: &NodeSelector{Terms: []NodeSelectorTerm{}},
			labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
			reason: "an empty term is dropped", required: terms(NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{}}),
			labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with no Affinity will schedule onto a node", reason: "no constraint",
			labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with Affinity but nil NodeSelector will schedule onto a node", reason: "nil required selector: no constraint",
			required: nil, labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with multiple matchExpressions ANDed that matches the existing node", reason: "Exists AND NotIn",
			required: terms(exprs(expr("GPU", Exists), expr("GPU", NotIn, "AMD", "INTER"))),
			labels:   labels{"GPU": "NVIDIA-GRID-K1"}, want: true},
		{name: "Pod with multiple matchExpressions ANDed that doesn't match the existing node", reason: "Exists AND In fails on In",
			required: terms(exprs(expr("GPU", Exists), expr("GPU", In, "AMD", "INTER"))),
			labels:   labels{"GPU": "NVIDIA-GRID-K1"}, want: false},
		{name: "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
			reason:   "the first term matches",
			required: terms(exprs(expr("foo", In, "bar", "value2")), exprs(expr("diffkey", In, "wrong", "value2"))),
			labels:   labels{"foo": "bar"}, want: true},
		{name: "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
			reason: "nodeSelector AND affinity", nodeSelector: labels{"foo": "bar"},
			required: terms(exprs(expr("foo", Exists))), labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
			reason: "nodeSelector fails", nodeSelector: labels{"foo": "bar"},
			required: terms(exprs(expr("foo", Exists))), labels: labels{"foo": "barrrrrr"}, want: false},
		{name: "Pod with an invalid value in Affinity term won't be scheduled onto the node",
			reason:   "a malformed term never matches, even NotIn on another value",
			required: terms(exprs(expr("foo", NotIn, "invalid value: ___@#$%^"))), labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with matchFields using In operator that matches the existing node", reason: "metadata.name In",
			required: terms(fields(expr(NodeNameField, In, "node_1"))), nodeName: "node_1", want: true},
		{name: "Pod with matchFields using In operator that does not match the existing node", reason: "other node name",
			required: terms(fields(expr(NodeNameField, In, "node_1"))), nodeName: "node_2", want: false},
		{name: "Pod with two terms: matchFields does not match, but matchExpressions matches", reason: "terms ORed",
			required: terms(fields(expr(NodeNameField, In, "node_1")), exprs(expr("foo", In, "bar"))),
			nodeName: "node_2", labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with one term: matchFields does not match, but matchExpressions matches", reason: "fields and expressions ANDed",
			required: terms(NodeSelectorTerm{
				MatchFields:      []NodeSelectorRequirement{expr(NodeNameField, In, "node_1")},
				MatchExpressions: []NodeSelectorRequirement{expr("foo", In, "bar")},
			}),
			nodeName: "node_2", labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with one term: both matchFields and matchExpressions match", reason: "both parts hold",
			required: terms(NodeSelectorTerm{
				MatchFields:      []NodeSelectorRequirement{expr(NodeNameField, In, "node_1")},
				MatchExpressions: []NodeSelectorRequirement{expr("foo", In, "bar")},
			}),
			nodeName: "node_1", labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with two terms: both matchFields and matchExpressions do not match", reason: "no term holds",
			required: terms(fields(expr(NodeNameField, In, "node_1")), exprs(expr("foo", In, "not-match-to-bar"))),
			nodeName: "node_2", labels: labels{"foo": "bar"}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := CompileNode(tt.nodeSelector, tt.required)
			got, mm := m.Match(tt.nodeName, tt.labels)
			if got != tt.want {
				t.Errorf("Match(%q, %v) = %v, %v; want %v (%s)", tt.nodeName, tt.labels, got, mm, tt.want, tt.reason)
			}
			if got != (mm == Mismatch{}) {
				t.Errorf("Match() = %v with mismatch %+v: a mismatch must come with false and only then", got, mm)
			}
		})
	}
}

// TestCompileNode covers the remaining rules of docs/eligibility.md, E4, and
// the Mismatch
// reported.
func TestCompileNode(t *testing.T) {
	tests := []struct {
		name         string
		reason       string
		nodeSelector map[string]string
		required     *NodeSelector
		nodeName     string
		labels       labels
		want         Mismatch
		wantErrs     []errRow
	}{
		{name: "nodeSelector first failing key in sorted order", reason: "keys are checked in sorted order",
			nodeSelector: labels{"b": "1", "a": "1", "c": "1"}, labels: labels{"b": "2", "c": "2"},
			want: Mismatch{NodeSelectorMismatch, "a"}},
		{name: "nodeSelector value differs", reason: "the value must be equal",
			nodeSelector: labels{"a": "1", "b": "1"}, labels: labels{"a": "1", "b": "2"},
			want: Mismatch{NodeSelectorMismatch, "b"}},
		{name: "nodeSelector empty value", reason: "an empty value needs the key with the empty value",
			nodeSelector: labels{"a": ""}, labels: labels{},
			want: Mismatch{NodeSelectorMismatch, "a"}},
		{name: "nodeSelector not validated", reason: "like SelectorFromSet, matching does not validate the map",
			nodeSelector: labels{"bad key": "bad value!"}, labels: labels{"bad key": "bad value!"}},
		{name: "empty nodeSelector map", reason: "an empty map does not constrain",
			nodeSelector: labels{}, labels: nil},
		{name: "nodeSelector reported before affinity", reason: "nodeSelector is checked first",
			nodeSelector: labels{"a": "1"}, required: &NodeSelector{},
			want: Mismatch{NodeSelectorMismatch, "a"}},
		{name: "affinity mismatch", reason: "no term matched",
			required: terms(exprs(expr("a", Exists))),
			want:     Mismatch{Kind: NodeAffinityMismatch}},
		{name: "only empty terms", reason: "empty terms are dropped and nothing is left",
			required: terms(NodeSelectorTerm{}, NodeSelectorTerm{MatchFields: []NodeSelectorRequirement{}}),
			labels:   labels{"a": "b"}, nodeName: "n",
			want: Mismatch{Kind: NodeAffinityMismatch}},
		{name: "empty term beside a matching one", reason: "an empty term does not spoil the others",
			required: terms(NodeSelectorTerm{}, exprs(expr("a", Exists))), labels: labels{"a": ""}},
		{name: "malformed term beside a matching one", reason: "lazy errors: other terms still count",
			required: terms(exprs(expr("a", "Like", "x")), exprs(expr("a", DoesNotExist))),
			wantErrs: []errRow{{field.TypeNotSupported, "nodeSelectorTerms[0].matchExpressions[0].operator", "Like"}}},
		{name: "malformed requirement spoils its term", reason: "a term with any malformed requirement does not match, even if the rest holds",
			required: terms(exprs(expr("a", Exists), expr("b", Gt, "1", "2"))), labels: labels{"a": "", "b": "5"},
			want:     Mismatch{Kind: NodeAffinityMismatch},
			wantErrs: []errRow{{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[1].values", []string{"1", "2"}}}},
		{name: "every problem of a term", reason: "all problems of all malformed terms are listed",
			required: terms(
				exprs(expr("a", In), expr("b", Exists, "x"), expr("c", Lt, "x"), expr("d", Gt, "-1")),
				fields(expr(NodeNameField, "Exists"), expr(NodeNameField, NotIn)),
			),
			labels: labels{"a": "x"}, nodeName: "n",
			want: Mismatch{Kind: NodeAffinityMismatch},
			wantErrs: []errRow{
				{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[0].values", []string(nil)},
				{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[1].values", []string{"x"}},
				{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[2].values[0]", "x"},
				{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[3].values[0]", "-1"},
				{field.TypeNotSupported, "nodeSelectorTerms[1].matchFields[0].operator", "Exists"},
				{field.TypeInvalid, "nodeSelectorTerms[1].matchFields[1].values", []string(nil)},
			}},
		{name: "Lt matches", reason: "a well-formed Lt",
			required: terms(exprs(expr("gen", Lt, "10"))), labels: labels{"gen": "9"}},
		{name: "Gt on a non-integer label", reason: "a label that does not parse never matches Gt",
			required: terms(exprs(expr("gen", Gt, "1"))), labels: labels{"gen": "v9"},
			want: Mismatch{Kind: NodeAffinityMismatch}},
		{name: "metadata.name NotIn", reason: "NotIn excludes one node",
			required: terms(fields(expr(NodeNameField, NotIn, "n1"))), nodeName: "n1",
			want: Mismatch{Kind: NodeAffinityMismatch}},
		{name: "metadata.name NotIn other node", reason: "NotIn keeps the others",
			required: terms(fields(expr(NodeNameField, NotIn, "n1"))), nodeName: "n2"},
		{name: "empty node name skips fields", reason: "with no node name upstream has no field set and skips matchFields",
			required: terms(fields(expr(NodeNameField, In, "n1"))), nodeName: ""},
		{name: "unknown field key with In", reason: "another field reads as empty, so In on a non-empty value fails",
			required: terms(fields(expr("metadata.uid", In, "x"))), nodeName: "n1",
			want: Mismatch{Kind: NodeAffinityMismatch}},
		{name: "unknown field key with NotIn", reason: "another field reads as empty, so NotIn on a non-empty value holds (upstream does not check field keys when matching)",
			required: terms(fields(expr("metadata.uid", NotIn, "x"))), nodeName: "n1"},
		{name: "field value not validated when matching", reason: "matchFields values are compared, not validated",
			required: terms(fields(expr(NodeNameField, In, "host_1"))), nodeName: "host_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := CompileNode(tt.nodeSelector, tt.required)
			ok, got := m.Match(tt.nodeName, tt.labels)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Match() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if ok != (tt.want == Mismatch{}) {
				t.Errorf("Match() = %v with mismatch %+v", ok, got)
			}
			if diff := cmp.Diff(tt.wantErrs, rows(m.ParseErrors())); diff != "" {
				t.Errorf("ParseErrors() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}

func TestNodeMatcherZero(t *testing.T) {
	var zero NodeMatcher
	if ok, mm := zero.Match("n", nil); !ok || mm != (Mismatch{}) {
		t.Errorf("zero NodeMatcher: Match() = %v, %+v; want true with no mismatch", ok, mm)
	}
	if errs := zero.ParseErrors(); errs != nil {
		t.Errorf("zero NodeMatcher: ParseErrors() = %v, want nil", errs)
	}
	// The constructor's result is usable in one expression.
	if ok, _ := CompileNode(map[string]string{"a": "1"}, nil).Match("n", labels{"a": "1"}); !ok {
		t.Error("CompileNode(a=1).Match(a=1) = false")
	}
}

func TestCompileNodeDoesNotRetainInput(t *testing.T) {
	ns := map[string]string{"a": "1"}
	req := terms(exprs(expr("b", In, "x")))
	m := CompileNode(ns, req)
	ns["a"] = "2"
	req.Terms[0].MatchExpressions[0].Values[0] = "y"
	if ok, mm := m.Match("n", labels{"a": "1", "b": "x"}); !ok {
		t.Errorf("matcher follows changes of its inputs: %+v", mm)
	}
}

func TestMismatchString(t *testing.T) {
	tests := []struct {
		name, reason string
		m            Mismatch
		want         string
	}{
		{"zero", "no mismatch renders empty", Mismatch{}, ""},
		{"selector", "names the key", Mismatch{NodeSelectorMismatch, "disk"}, `node selector key "disk" not matched`},
		{"affinity", "no key", Mismatch{Kind: NodeAffinityMismatch}, "no required node affinity term matched"},
		{"unknown", "an out-of-range kind still renders", Mismatch{Kind: 9}, "MismatchKind(9)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.m.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
	if NodeSelectorMismatch.String() != "NodeSelectorMismatch" || NodeAffinityMismatch.String() != "NodeAffinityMismatch" {
		t.Errorf("MismatchKind names wrong")
	}
}

func TestValidateNodeSelector(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     *NodeSelector
		want   []errRow
	}{
		{"nil", "nothing to validate", nil, nil},
		{"no terms", "at least one term is required", &NodeSelector{}, []errRow{{field.TypeRequired, "nodeSelectorTerms", nil}}},
		{"valid", "every operator used well; an empty term is valid", terms(
			exprs(expr("a", In, "x"), expr("b", NotIn, "y", ""), expr("c", Exists), expr("d", DoesNotExist), expr("e", Gt, "1"), expr("f", Lt, "2")),
			fields(expr(NodeNameField, In, "node-1"), expr(NodeNameField, NotIn, "node-2")),
			NodeSelectorTerm{},
		), nil},
		{"In without values", "Required at .values", terms(exprs(expr("a", In))),
			[]errRow{{field.TypeRequired, "nodeSelectorTerms[0].matchExpressions[0].values", nil}}},
		{"Exists with values", "Forbidden at .values", terms(exprs(expr("a", Exists, "x"))),
			[]errRow{{field.TypeForbidden, "nodeSelectorTerms[0].matchExpressions[0].values", nil}}},
		{"Gt two values", "Gt needs a single value", terms(exprs(expr("a", Gt, "1", "2"))),
			[]errRow{{field.TypeRequired, "nodeSelectorTerms[0].matchExpressions[0].values", nil}}},
		{"Lt no value", "Lt needs a single value", terms(exprs(expr("a", Lt))),
			[]errRow{{field.TypeRequired, "nodeSelectorTerms[0].matchExpressions[0].values", nil}}},
		{"Gt not an integer", "API validation only checks the value is a label value", terms(exprs(expr("a", Gt, "x"))), nil},
		{"bad operator", "Invalid at .operator", terms(exprs(expr("a", Equals, "x"))),
			[]errRow{{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[0].operator", "="}}},
		{"bad key and values", "key and each value are checked", terms(exprs(expr("invalid key", In, "ok", "-no"))),
			[]errRow{
				{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[0].key", "invalid key"},
				{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[0].values[1]", "-no"},
			}},
		{"second term, second expression", "paths index terms and expressions", terms(
			exprs(expr("a", Exists)),
			exprs(expr("a", Exists), expr("b", NotIn)),
		), []errRow{{field.TypeRequired, "nodeSelectorTerms[1].matchExpressions[1].values", nil}}},
		{"field two values", "matchFields In needs exactly one value", terms(fields(expr(NodeNameField, In, "a", "b"))),
			[]errRow{{field.TypeRequired, "nodeSelectorTerms[0].matchFields[0].values", nil}}},
		{"field bad operator", "matchFields allow In and NotIn only", terms(fields(expr(NodeNameField, Exists))),
			[]errRow{{field.TypeInvalid, "nodeSelectorTerms[0].matchFields[0].operator", "Exists"}}},
		{"field bad key", "only metadata.name", terms(fields(expr("metadata.uid", In, "x"))),
			[]errRow{{field.TypeInvalid, "nodeSelectorTerms[0].matchFields[0].key", "metadata.uid"}}},
		{"field bad node name", "node names are DNS subdomains", terms(fields(expr(NodeNameField, In, "host_1"))),
			[]errRow{{field.TypeInvalid, "nodeSelectorTerms[0].matchFields[0].values[0]", "host_1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rows(ValidateNodeSelector(tt.in))); diff != "" {
				t.Errorf("ValidateNodeSelector() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}

func TestValidateNodeSelectorMap(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     map[string]string
		want   []errRow
	}{
		{"nil", "nothing to validate", nil, nil},
		{"valid", "label keys and values", labels{"kubernetes.io/os": "linux", "a": ""}, nil},
		{"bad key and value", "key problems then value problems, keys sorted", labels{"z": "-v", "bad key": "ok"}, []errRow{
			{field.TypeInvalid, "[bad key]", "bad key"},
			{field.TypeInvalid, "[z]", "-v"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateNodeSelectorMap(tt.in)
			if diff := cmp.Diff(tt.want, rows(got)); diff != "" {
				t.Errorf("ValidateNodeSelectorMap() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			for _, e := range got.Prefix("spec.template.spec.nodeSelector") {
				if e.Field[:len("spec.template.spec.nodeSelector[")] != "spec.template.spec.nodeSelector[" {
					t.Errorf("prefixed path %q", e.Field)
				}
			}
		})
	}
}
