package taints

// Effect is what a taint does to pods that do not tolerate it.
type Effect string

// The taint effects. An empty Effect on a toleration matches every effect.
const (
	NoSchedule       Effect = "NoSchedule"
	PreferNoSchedule Effect = "PreferNoSchedule"
	NoExecute        Effect = "NoExecute"
)

// Operator is how a toleration compares its value with a taint's value.
type Operator string

// The toleration operators. The empty operator means Equal. Lt and Gt are
// honoured only when Options.ComparisonOperators is set (upstream's alpha
// TaintTolerationComparisonOperators gate, alpha since v1.35 and off by default).
const (
	Equal  Operator = "Equal"
	Exists Operator = "Exists"
	Lt     Operator = "Lt"
	Gt     Operator = "Gt"
)

// Taint is a node taint (corev1.Taint without the timeAdded bookkeeping).
type Taint struct {
	Key    string
	Value  string
	Effect Effect
}

// Toleration is a pod toleration (corev1.Toleration). A nil TolerationSeconds
// means "tolerate forever"; matching ignores it.
type Toleration struct {
	Key               string
	Operator          Operator
	Value             string
	Effect            Effect
	TolerationSeconds *int64
}
