package conformance

import (
	"encoding/json"

	"github.com/daemonplan/daemonplan/kube/schema"
)

// The schema's types, owned by package schema.
type (
	Plan          = schema.Plan
	Ref           = schema.Ref
	Node          = schema.Node
	Create        = schema.Create
	Toleration    = schema.Toleration
	Delete        = schema.Delete
	Relabel       = schema.Relabel
	Revisions     = schema.Revisions
	Revision      = schema.Revision
	Status        = schema.Status
	RolloutStatus = schema.RolloutStatus
	Warning       = schema.Warning
)

// Expected is an expected.json: upstream's plan and, for a
// non-deterministic case, the other outcomes seen.
type Expected struct {
	Plan
	// Deterministic is false when upstream picked pods or nodes in map
	// order; a missing field means true.
	Deterministic *bool         `json:"deterministic,omitempty"`
	Alternatives  []Alternative `json:"alternatives"`
	// Unmapped records writes the API refused; never compared.
	Unmapped []json.RawMessage `json:"unmapped,omitempty"`
}

// Alternative is another outcome upstream was seen to produce.
type Alternative struct {
	Create []Create `json:"create"`
	Delete []Delete `json:"delete"`
}

// IsDeterministic reports whether the case must match create and delete
// exactly.
func (e *Expected) IsDeterministic() bool {
	return e.Deterministic == nil || *e.Deterministic
}
