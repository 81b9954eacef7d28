package load_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/kube/load"
)

const admissionYAML = `apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec:
  limits:
  - type: Container
    default: {cpu: 500m}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: agents}
value: 1000
preemptionPolicy: Never
---
apiVersion: v1
kind: List
items:
- apiVersion: node.k8s.io/v1
  kind: RuntimeClass
  metadata: {name: kata}
  handler: kata
  overhead: {podFixed: {memory: 120Mi}}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: shop}
  spec: {selector: {matchLabels: {app: web}}}
  status: {disruptionsAllowed: 1}
`

func TestLoadAdmissionKinds(t *testing.T) {
	tests := []struct {
		name, reason string
		in           string
		want         string // substring of the error, "" for none
	}{
		{"every kind", "LimitRange, PriorityClass, RuntimeClass and PodDisruptionBudget are read, namespaced or not", admissionYAML, ""},
		{"old PDB version", "policy/v1beta1 is no longer served", "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: x}\n", "unsupported apiVersion, want policy/v1"},
		{"wrong type", "a PriorityClass value must be a number; the error names the document and object", "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: high\n", "YAML document 2 (scheduling.k8s.io/v1 PriorityClass high)"},
		{"list item", "a bad item of a list is named by its index", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: node.k8s.io/v1\n  kind: RuntimeClass\n  metadata: {name: kata}\n  overhead: {podFixed: {memory: lots}}\n", "items[0] (node.k8s.io/v1 RuntimeClass kata)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := load.Load(load.Options{}, load.Source{Name: "in.yaml", R: strings.NewReader(tt.in)})
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("%s: Load() error = %v, want one containing %q", tt.reason, err, tt.want)
				}
				return
			}
			require.NoError(t, err, tt.reason)
			require.Len(t, objs.LimitRanges, 1)
			require.Equal(t, "default", objs.LimitRanges[0].Namespace, "a LimitRange without namespace is read in the default one")
			require.Len(t, objs.PriorityClasses, 1)
			require.Equal(t, "", objs.PriorityClasses[0].Namespace, "PriorityClasses are cluster-scoped")
			require.Equal(t, int32(1000), objs.PriorityClasses[0].Value)
			require.Len(t, objs.RuntimeClasses, 1)
			require.Len(t, objs.PodDisruptionBudgets, 1)
			require.Equal(t, int32(1), objs.PodDisruptionBudgets[0].Status.DisruptionsAllowed)
			require.Len(t, objs.At.PodDisruptionBudgets, 1)
			require.Empty(t, objs.Ignored)
		})
	}
}
