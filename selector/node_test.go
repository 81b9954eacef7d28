package selector

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// Shorthands for building node selectors in tables.
func expr(key string, op api.SelectorOperator, values ...string) api.NodeSelectorRequirement {
	return api.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func exprs(rs ...api.NodeSelectorRequirement) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchExpressions: rs}
}

func fields(rs ...api.NodeSelectorRequirement) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchFields: rs}
}

func terms(ts ...api.NodeSelectorTerm) *api.NodeSelector { return &api.NodeSelector{Terms: ts} }

// TestNodeSelectorMatch follows component-helpers' test of the same name:
// the strict errors of NewNodeSelector are NodeMatcher.ParseErrors here, and
// Match keeps matching with the well-formed terms.
func TestNodeSelectorMatch(t *testing.T) {
	tests := []struct {
		name     string
		reason   string
		ns       *api.NodeSelector
		nodeName string
		labels   labels
		wantErrs []errRow
		want     bool
	}{
		{
			name:   "nil node",
			reason: "upstream passes a nil node with an empty selector; here: a selector with no terms matches no node",
			ns:     &api.NodeSelector{},
			want:   false,
		},
		{
			name:   "invalid field selector and label selector",
			reason: "two values in matchFields and a key with a space are reported; the valid middle term still matches",
			ns: terms(
				fields(expr(api.NodeNameField, api.SelectorOpIn, "host_1", "host_2")),
				api.NodeSelectorTerm{
					MatchExpressions: []api.NodeSelectorRequirement{expr("label_1", api.SelectorOpIn, "label_1_val")},
					MatchFields:      []api.NodeSelectorRequirement{expr(api.NodeNameField, api.SelectorOpIn, "host_1")},
				},
				exprs(expr("invalid key", api.SelectorOpIn, "label_value")),
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
			ns: terms(api.NodeSelectorTerm{
				MatchExpressions: []api.NodeSelectorRequirement{expr("label_1", api.SelectorOpIn, "label_1_val")},
				MatchFields:      []api.NodeSelectorRequirement{expr(api.NodeNameField, api.SelectorOpIn, "host_1")},
			}),
			nodeName: "host_1",
			want:     false,
		},
		{
			name:   "node matches field selector and label selector",
			reason: "both parts of the term hold",
			ns: terms(api.NodeSelectorTerm{
				MatchExpressions: []api.NodeSelectorRequirement{expr("label_1", api.SelectorOpIn, "label_1_val")},
				MatchFields:      []api.NodeSelectorRequirement{expr(api.NodeNameField, api.SelectorOpIn, "host_1")},
			}),
			nodeName: "host_1",
			labels:   labels{"label_1": "label_1_val"},
			want:     true,
		},
		{
			name:     "second term matches",
			reason:   "terms are ORed",
			ns:       terms(exprs(expr("label_1", api.SelectorOpIn, "label_1_val")), fields(expr(api.NodeNameField, api.SelectorOpIn, "host_1"))),
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
		required     *api.NodeSelector
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
			required: terms(exprs(expr("foo", api.SelectorOpIn, "bar", "value2"))), labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with matchExpressions using Gt operator that matches the existing node", reason: "Gt reads 0206 and 0204 as integers",
			required: terms(exprs(expr("kernel-version", api.SelectorOpGt, "0204"))), labels: labels{"kernel-version": "0206"}, want: true},
		{name: "Pod with matchExpressions using NotIn operator that matches the existing node", reason: "NotIn",
			required: terms(exprs(expr("mem-type", api.SelectorOpNotIn, "DDR", "DDR2"))), labels: labels{"mem-type": "DDR3"}, want: true},
		{name: "Pod with matchExpressions using Exists operator that matches the existing node", reason: "Exists",
			required: terms(exprs(expr("GPU", api.SelectorOpExists))), labels: labels{"GPU": "NVIDIA-GRID-K1"}, want: true},
		{name: "Pod with affinity that don't match node's labels won't schedule onto the node", reason: "In with other values",
			required: terms(exprs(expr("foo", api.SelectorOpIn, "value1", "value2"))), labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
			reason: "a non-nil required selector with nil terms matches nothing", required: &api.NodeSelector{Terms: nil},
			labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
			reason: "an empty term list matches nothing", required: &api.NodeSelector{Terms: []api.NodeSelectorTerm{}},
			labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
			reason: "an empty term is dropped", required: terms(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{}}),
			labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with no Affinity will schedule onto a node", reason: "no constraint",
			labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with Affinity but nil NodeSelector will schedule onto a node", reason: "nil required selector: no constraint",
			required: nil, labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with multiple matchExpressions ANDed that matches the existing node", reason: "Exists AND NotIn",
			required: terms(exprs(expr("GPU", api.SelectorOpExists), expr("GPU", api.SelectorOpNotIn, "AMD", "INTER"))),
			labels:   labels{"GPU": "NVIDIA-GRID-K1"}, want: true},
		{name: "Pod with multiple matchExpressions ANDed that doesn't match the existing node", reason: "Exists AND In fails on In",
			required: terms(exprs(expr("GPU", api.SelectorOpExists), expr("GPU", api.SelectorOpIn, "AMD", "INTER"))),
			labels:   labels{"GPU": "NVIDIA-GRID-K1"}, want: false},
		{name: "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
			reason:   "the first term matches",
			required: terms(exprs(expr("foo", api.SelectorOpIn, "bar", "value2")), exprs(expr("diffkey", api.SelectorOpIn, "wrong", "value2"))),
			labels:   labels{"foo": "bar"}, want: true},
		{name: "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
			reason: "nodeSelector AND affinity", nodeSelector: labels{"foo": "bar"},
			required: terms(exprs(expr("foo", api.SelectorOpExists))), labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
			reason: "nodeSelector fails", nodeSelector: labels{"foo": "bar"},
			required: terms(exprs(expr("foo", api.SelectorOpExists))), labels: labels{"foo": "barrrrrr"}, want: false},
		{name: "Pod with an invalid value in Affinity term won't be scheduled onto the node",
			reason:   "a malformed term never matches, even NotIn on another value",
			required: terms(exprs(expr("foo", api.SelectorOpNotIn, "invalid value: ___@#$%^"))), labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with matchFields using In operator that matches the existing node", reason: "metadata.name In",
			required: terms(fields(expr(api.NodeNameField, api.SelectorOpIn, "node_1"))), nodeName: "node_1", want: true},
		{name: "Pod with matchFields using In operator that does not match the existing node", reason: "other node name",
			required: terms(fields(expr(api.NodeNameField, api.SelectorOpIn, "node_1"))), nodeName: "node_2", want: false},
		{name: "Pod with two terms: matchFields does not match, but matchExpressions matches", reason: "terms ORed",
			required: terms(fields(expr(api.NodeNameField, api.SelectorOpIn, "node_1")), exprs(expr("foo", api.SelectorOpIn, "bar"))),
			nodeName: "node_2", labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with one term: matchFields does not match, but matchExpressions matches", reason: "fields and expressions ANDed",
			required: terms(api.NodeSelectorTerm{
				MatchFields:      []api.NodeSelectorRequirement{expr(api.NodeNameField, api.SelectorOpIn, "node_1")},
				MatchExpressions: []api.NodeSelectorRequirement{expr("foo", api.SelectorOpIn, "bar")},
			}),
			nodeName: "node_2", labels: labels{"foo": "bar"}, want: false},
		{name: "Pod with one term: both matchFields and matchExpressions match", reason: "both parts hold",
			required: terms(api.NodeSelectorTerm{
				MatchFields:      []api.NodeSelectorRequirement{expr(api.NodeNameField, api.SelectorOpIn, "node_1")},
				MatchExpressions: []api.NodeSelectorRequirement{expr("foo", api.SelectorOpIn, "bar")},
			}),
			nodeName: "node_1", labels: labels{"foo": "bar"}, want: true},
		{name: "Pod with two terms: both matchFields and matchExpressions do not match", reason: "no term holds",
			required: terms(fields(expr(api.NodeNameField, api.SelectorOpIn, "node_1")), exprs(expr("foo", api.SelectorOpIn, "not-match-to-bar"))),
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
		required     *api.NodeSelector
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
			nodeSelector: labels{"a": "1"}, required: &api.NodeSelector{},
			want: Mismatch{NodeSelectorMismatch, "a"}},
		{name: "affinity mismatch", reason: "no term matched",
			required: terms(exprs(expr("a", api.SelectorOpExists))),
			want:     Mismatch{Kind: NodeAffinityMismatch}},
		{name: "only empty terms", reason: "empty terms are dropped and nothing is left",
			required: terms(api.NodeSelectorTerm{}, api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{}}),
			labels:   labels{"a": "b"}, nodeName: "n",
			want: Mismatch{Kind: NodeAffinityMismatch}},
		{name: "empty term beside a matching one", reason: "an empty term does not spoil the others",
			required: terms(api.NodeSelectorTerm{}, exprs(expr("a", api.SelectorOpExists))), labels: labels{"a": ""}},
		{name: "malformed term beside a matching one", reason: "lazy errors: other terms still count",
			required: terms(exprs(expr("a", "Like", "x")), exprs(expr("a", api.SelectorOpDoesNotExist))),
			wantErrs: []errRow{{field.TypeNotSupported, "nodeSelectorTerms[0].matchExpressions[0].operator", "Like"}}},
		{name: "malformed requirement spoils its term", reason: "a term with any malformed requirement does not match, even if the rest holds",
			required: terms(exprs(expr("a", api.SelectorOpExists), expr("b", api.SelectorOpGt, "1", "2"))), labels: labels{"a": "", "b": "5"},
			want:     Mismatch{Kind: NodeAffinityMismatch},
			wantErrs: []errRow{{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[1].values", []string{"1", "2"}}}},
		{name: "every problem of a term", reason: "all problems of all malformed terms are listed",
			required: terms(
				exprs(expr("a", api.SelectorOpIn), expr("b", api.SelectorOpExists, "x"), expr("c", api.SelectorOpLt, "x"), expr("d", api.SelectorOpGt, "-1")),
				fields(expr(api.NodeNameField, "Exists"), expr(api.NodeNameField, api.SelectorOpNotIn)),
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
			required: terms(exprs(expr("gen", api.SelectorOpLt, "10"))), labels: labels{"gen": "9"}},
		{name: "Gt on a non-integer label", reason: "a label that does not parse never matches Gt",
			required: terms(exprs(expr("gen", api.SelectorOpGt, "1"))), labels: labels{"gen": "v9"},
			want: Mismatch{Kind: NodeAffinityMismatch}},
		{name: "metadata.name NotIn", reason: "NotIn excludes one node",
			required: terms(fields(expr(api.NodeNameField, api.SelectorOpNotIn, "n1"))), nodeName: "n1",
			want: Mismatch{Kind: NodeAffinityMismatch}},
		{name: "metadata.name NotIn other node", reason: "NotIn keeps the others",
			required: terms(fields(expr(api.NodeNameField, api.SelectorOpNotIn, "n1"))), nodeName: "n2"},
		{name: "empty node name skips fields", reason: "with no node name upstream has no field set and skips matchFields",
			required: terms(fields(expr(api.NodeNameField, api.SelectorOpIn, "n1"))), nodeName: ""},
		{name: "unknown field key with In", reason: "another field reads as empty, so In on a non-empty value fails",
			required: terms(fields(expr("metadata.uid", api.SelectorOpIn, "x"))), nodeName: "n1",
			want: Mismatch{Kind: NodeAffinityMismatch}},
		{name: "unknown field key with NotIn", reason: "another field reads as empty, so NotIn on a non-empty value holds (upstream does not check field keys when matching)",
			required: terms(fields(expr("metadata.uid", api.SelectorOpNotIn, "x"))), nodeName: "n1"},
		{name: "field value not validated when matching", reason: "matchFields values are compared, not validated",
			required: terms(fields(expr(api.NodeNameField, api.SelectorOpIn, "host_1"))), nodeName: "host_1"},
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
	req := terms(exprs(expr("b", api.SelectorOpIn, "x")))
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
