package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/field"
)

// Shorthands for building node selectors in tables.
type labels = map[string]string

func expr(key string, op SelectorOperator, values ...string) NodeSelectorRequirement {
	return NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func exprs(rs ...NodeSelectorRequirement) NodeSelectorTerm {
	return NodeSelectorTerm{MatchExpressions: rs}
}

func fields(rs ...NodeSelectorRequirement) NodeSelectorTerm {
	return NodeSelectorTerm{MatchFields: rs}
}

func terms(ts ...NodeSelectorTerm) *NodeSelector { return &NodeSelector{Terms: ts} }

func TestValidateLabelSelector(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     *LabelSelector
		want   []errRow
	}{
		{"nil", "a nil selector has nothing to validate", nil, nil},
		{"empty", "emptiness is the DaemonSet validator's concern, not the selector's", &LabelSelector{}, nil},
		{"valid", "a selector of every label operator", &LabelSelector{
			MatchLabels: labels{"example.com/app": "web", "e": ""},
			MatchExpressions: []LabelSelectorRequirement{
				{Key: "a", Operator: SelectorOpIn, Values: []string{"x", ""}},
				{Key: "b", Operator: SelectorOpNotIn, Values: []string{"y"}},
				{Key: "c", Operator: SelectorOpExists},
				{Key: "d", Operator: SelectorOpDoesNotExist},
			},
		}, nil},
		{"In without values", "In needs values: Required at .values", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: SelectorOpIn},
		}}, []errRow{{field.TypeRequired, "matchExpressions[0].values", nil}}},
		{"NotIn empty values", "an empty list is no values", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: SelectorOpNotIn, Values: []string{}},
		}}, []errRow{{field.TypeRequired, "matchExpressions[0].values", nil}}},
		{"Exists with values", "Exists takes no values: Forbidden at .values", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: SelectorOpIn, Values: []string{"x"}},
			{Key: "a", Operator: SelectorOpExists, Values: []string{"x"}},
		}}, []errRow{{field.TypeForbidden, "matchExpressions[1].values", nil}}},
		{"DoesNotExist with values", "DoesNotExist takes no values", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: SelectorOpDoesNotExist, Values: []string{""}},
		}}, []errRow{{field.TypeForbidden, "matchExpressions[0].values", nil}}},
		{"bad operators", "only In, NotIn, Exists, DoesNotExist; the key and values are still checked", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: "", Values: []string{"x"}},
			{Key: "a", Operator: "in", Values: []string{"x"}},
			{Key: "a", Operator: SelectorOperator("="), Values: []string{"-x"}},
		}}, []errRow{
			{field.TypeInvalid, "matchExpressions[0].operator", ""},
			{field.TypeInvalid, "matchExpressions[1].operator", "in"},
			{field.TypeInvalid, "matchExpressions[2].operator", "="},
			{field.TypeInvalid, "matchExpressions[2].values[0]", "-x"},
		}},
		{"bad key", "one error per problem of the key", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "", Operator: SelectorOpExists},
		}}, []errRow{
			{field.TypeInvalid, "matchExpressions[0].key", ""},
			{field.TypeInvalid, "matchExpressions[0].key", ""},
		}},
		{"bad values", "each bad value at its index", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: SelectorOpIn, Values: []string{"ok", "not ok", "", "_x"}},
		}}, []errRow{
			{field.TypeInvalid, "matchExpressions[0].values[1]", "not ok"},
			{field.TypeInvalid, "matchExpressions[0].values[3]", "_x"},
		}},
		{"matchLabels sorted", "matchLabels problems come in key order, at matchLabels", &LabelSelector{MatchLabels: labels{
			"z/": "v", "a b": "-", "ok": "ok",
		}}, []errRow{
			{field.TypeInvalid, "matchLabels", "a b"},
			{field.TypeInvalid, "matchLabels", "-"},
			{field.TypeInvalid, "matchLabels", "z/"},
			{field.TypeInvalid, "matchLabels", "z/"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateLabelSelector(tt.in)
			if diff := cmp.Diff(tt.want, rows(got)); diff != "" {
				t.Errorf("ValidateLabelSelector() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			prefixed := got.Prefix("spec.selector")
			for i := range prefixed {
				if want := "spec.selector." + got[i].Field; prefixed[i].Field != want {
					t.Errorf("Prefix gave %q, want %q", prefixed[i].Field, want)
				}
			}
		})
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
			exprs(expr("a", SelectorOpIn, "x"), expr("b", SelectorOpNotIn, "y", ""), expr("c", SelectorOpExists), expr("d", SelectorOpDoesNotExist), expr("e", SelectorOpGt, "1"), expr("f", SelectorOpLt, "2")),
			fields(expr(NodeNameField, SelectorOpIn, "node-1"), expr(NodeNameField, SelectorOpNotIn, "node-2")),
			NodeSelectorTerm{},
		), nil},
		{"In without values", "Required at .values", terms(exprs(expr("a", SelectorOpIn))),
			[]errRow{{field.TypeRequired, "nodeSelectorTerms[0].matchExpressions[0].values", nil}}},
		{"Exists with values", "Forbidden at .values", terms(exprs(expr("a", SelectorOpExists, "x"))),
			[]errRow{{field.TypeForbidden, "nodeSelectorTerms[0].matchExpressions[0].values", nil}}},
		{"Gt two values", "Gt needs a single value", terms(exprs(expr("a", SelectorOpGt, "1", "2"))),
			[]errRow{{field.TypeRequired, "nodeSelectorTerms[0].matchExpressions[0].values", nil}}},
		{"Lt no value", "Lt needs a single value", terms(exprs(expr("a", SelectorOpLt))),
			[]errRow{{field.TypeRequired, "nodeSelectorTerms[0].matchExpressions[0].values", nil}}},
		{"Gt not an integer", "API validation only checks the value is a label value", terms(exprs(expr("a", SelectorOpGt, "x"))), nil},
		{"bad operator", "Invalid at .operator", terms(exprs(expr("a", SelectorOperator("="), "x"))),
			[]errRow{{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[0].operator", "="}}},
		{"bad key and values", "key and each value are checked", terms(exprs(expr("invalid key", SelectorOpIn, "ok", "-no"))),
			[]errRow{
				{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[0].key", "invalid key"},
				{field.TypeInvalid, "nodeSelectorTerms[0].matchExpressions[0].values[1]", "-no"},
			}},
		{"second term, second expression", "paths index terms and expressions", terms(
			exprs(expr("a", SelectorOpExists)),
			exprs(expr("a", SelectorOpExists), expr("b", SelectorOpNotIn)),
		), []errRow{{field.TypeRequired, "nodeSelectorTerms[1].matchExpressions[1].values", nil}}},
		{"field two values", "matchFields In needs exactly one value", terms(fields(expr(NodeNameField, SelectorOpIn, "a", "b"))),
			[]errRow{{field.TypeRequired, "nodeSelectorTerms[0].matchFields[0].values", nil}}},
		{"field bad operator", "matchFields allow In and NotIn only", terms(fields(expr(NodeNameField, SelectorOpExists))),
			[]errRow{{field.TypeInvalid, "nodeSelectorTerms[0].matchFields[0].operator", "Exists"}}},
		{"field bad key", "only metadata.name", terms(fields(expr("metadata.uid", SelectorOpIn, "x"))),
			[]errRow{{field.TypeInvalid, "nodeSelectorTerms[0].matchFields[0].key", "metadata.uid"}}},
		{"field bad node name", "node names are DNS subdomains", terms(fields(expr(NodeNameField, SelectorOpIn, "host_1"))),
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
