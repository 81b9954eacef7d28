package nodepool_test

import (
	"slices"
	"testing"

	"github.com/daemonplan/daemonplan/kube/nodepool"
	"github.com/daemonplan/daemonplan/overhead"
)

// FuzzRead: any input is an error or NodePools sorted by unique name, each
// labelled with its name and with a template that compiles; never a panic.
func FuzzRead(f *testing.F) {
	f.Add([]byte("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {template: {spec: {requirements: [{key: a, operator: Gt, values: [\"3\"]}], startupTaints: [{key: s, effect: NoExecute}]}}}\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [{apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: b}}, {apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: a}}]\n"))
	f.Add([]byte("instanceTypes: [{name: a}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pools, err := nodepool.Read("f.yaml", data)
		if err != nil {
			return
		}
		if !slices.IsSortedFunc(pools, func(a, b nodepool.NodePool) int {
			if a.Name == b.Name {
				t.Fatalf("NodePool %q twice", a.Name)
			}
			if a.Name < b.Name {
				return -1
			}
			return 1
		}) {
			t.Fatalf("not sorted by name")
		}
		for _, np := range pools {
			if np.Template.Labels[nodepool.LabelNodePool] != np.Name {
				t.Fatalf("%s: labels %v", np.Name, np.Template.Labels)
			}
			if _, err := overhead.CompileTemplate(&np.Template); err != nil {
				t.Fatalf("%s: read, but its template does not compile: %v", np.Name, err)
			}
		}
		if _, err := nodepool.ReadInstanceTypes("f.yaml", data); err == nil {
			t.Logf("also an instance-type list")
		}
	})
}
