package nodepool_test

import (
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/kube/nodepool"
)

func TestReadErrors(t *testing.T) {
	const head = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\n"
	for _, tc := range []struct {
		name, reason, in, want string
	}{
		{"List", "kubectl get nodepools -o yaml prints a List", "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(head, "\n", "\n  ") + "spec: {template: {spec: {requirements: []}}}\n", ""},
		{"Twice", "names are unique", head + "---\n" + head, `NodePool "p" given twice`},
		{"NoName", "a NodePool has a name", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {}\n", "metadata.name: Required value"},
		{"NodePoolLabel", "Karpenter owns karpenter.sh/nodepool", head + "spec: {template: {metadata: {labels: {karpenter.sh/nodepool: other}}}}\n", "spec.template.metadata.labels[karpenter.sh/nodepool]"},
		{"MinValues", "minValues is positive", head + "spec: {template: {spec: {requirements: [{key: a, operator: Exists, minValues: 0}]}}}\n", "requirements[0].minValues"},
		{"GtValue", "Gt takes an integer", head + "spec: {template: {spec: {requirements: [{key: a, operator: Gt, values: [x]}]}}}\n", "spec.template.spec.requirements[0].values[0]"},
		{"Repeated", "a field given twice", head + "spec: {template: {spec: {taints: [], taints: []}}}\n", "YAML document 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pools, err := nodepool.Read("np.yaml", []byte(tc.in))
			if tc.want == "" {
				if err != nil || len(pools) != 1 {
					t.Fatalf("%s: %v %v", tc.reason, pools, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want %q", tc.reason, err, tc.want)
			}
		})
	}
}
