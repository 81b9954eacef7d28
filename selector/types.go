package selector

// Operator is a requirement operator of a label selector, a node selector
// requirement, or the kubectl -l string syntax.
type Operator string

// The operators. Equals, DoubleEquals and NotEquals exist only in the string
// syntax; In, NotIn, Exists and DoesNotExist in API label selectors; node
// selector requirements add Gt and Lt.
const (
	In           Operator = "In"
	NotIn        Operator = "NotIn"
	Exists       Operator = "Exists"
	DoesNotExist Operator = "DoesNotExist"
	Gt           Operator = "Gt"
	Lt           Operator = "Lt"
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	NotEquals    Operator = "!="
)

// LabelSelectorRequirement is one entry of LabelSelector.MatchExpressions, as
// the API writes it (metav1.LabelSelectorRequirement).
type LabelSelectorRequirement struct {
	Key      string
	Operator Operator
	Values   []string
}

// LabelSelector is a label selector as the API writes it (metav1.LabelSelector).
// A nil *LabelSelector selects nothing; a non-nil one with no matchLabels and no
// matchExpressions selects everything.
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []LabelSelectorRequirement
}

// NodeSelectorRequirement is one requirement of a node selector term
// (corev1.NodeSelectorRequirement). In MatchExpressions the key is a node
// label; in MatchFields it is a node field, and only "metadata.name" exists.
type NodeSelectorRequirement struct {
	Key      string
	Operator Operator
	Values   []string
}

// NodeSelectorTerm is one term of a required node affinity. Its expressions
// and fields are ANDed. A term with neither matches nothing.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement
	MatchFields      []NodeSelectorRequirement
}

// NodeSelector is requiredDuringSchedulingIgnoredDuringExecution of a node
// affinity (corev1.NodeSelector): its terms are ORed. A non-nil NodeSelector
// with no terms matches nothing.
type NodeSelector struct {
	Terms []NodeSelectorTerm
}

// NodeNameField is the only node field that MatchFields can name.
const NodeNameField = "metadata.name"
