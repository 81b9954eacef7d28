package placement

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan/api"
)

// TestNameIndexFindsEveryNode: with tags and without (as past 16M nodes),
// at sizes around the table's growth steps, lookup finds every indexed
// node at its position, and no name that is not indexed.
func TestNameIndexFindsEveryNode(t *testing.T) {
	for _, tagged := range []bool{true, false} {
		for _, n := range []int{0, 1, 2, 3, 7, 8, 100, 1023, 1024, 1025, 5000} {
			nodes := make([]*api.Node, n)
			for i := range nodes {
				nodes[i] = &api.Node{Name: fmt.Sprintf("node-%05d", i)}
			}
			x := nameIndex{once: true}
			x.index(nodes, tagged)
			for i, node := range nodes {
				h := x.hash(node.Name)
				if got := x.lookup(nodes, node.Name, h); got != int32(i) {
					t.Fatalf("tagged %v, %d nodes: lookup(%s) = %d, want %d", tagged, n, node.Name, got, i)
				}
				if f := x.first(h); f < -1 || f >= int32(n) {
					t.Fatalf("tagged %v, %d nodes: first(%s) = %d, not a position or -1", tagged, n, node.Name, f)
				}
			}
			for _, absent := range []string{"", "node-x", fmt.Sprintf("node-%05d", n)} {
				if got := x.lookup(nodes, absent, x.hash(absent)); got != -1 {
					t.Fatalf("tagged %v, %d nodes: lookup(%q) = %d, want -1", tagged, n, absent, got)
				}
			}
		}
	}
}
