package scratch

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan/api"
)

// TestNodeIndexFindsEveryNode: with tags and without (as past 16M nodes),
// at sizes around the table's growth steps, Lookup finds every indexed
// node at its position, and no name that is not indexed.
func TestNodeIndexFindsEveryNode(t *testing.T) {
	for _, tagged := range []bool{true, false} {
		for _, n := range []int{0, 1, 2, 3, 7, 8, 100, 1023, 1024, 1025, 5000} {
			nodes := make([]*api.Node, n)
			for i := range nodes {
				nodes[i] = &api.Node{Name: fmt.Sprintf("node-%05d", i)}
			}
			x := NodeIndex{Once: true}
			x.index(nodes, tagged)
			for i, node := range nodes {
				h := x.Hash(node.Name)
				if got := x.Lookup(nodes, node.Name, h); got != int32(i) {
					t.Fatalf("tagged %v, %d nodes: Lookup(%s) = %d, want %d", tagged, n, node.Name, got, i)
				}
				if f := x.First(h); f < -1 || f >= int32(n) {
					t.Fatalf("tagged %v, %d nodes: First(%s) = %d, not a position or -1", tagged, n, node.Name, f)
				}
			}
			for _, absent := range []string{"", "node-x", fmt.Sprintf("node-%05d", n)} {
				if got := x.Lookup(nodes, absent, x.Hash(absent)); got != -1 {
					t.Fatalf("tagged %v, %d nodes: Lookup(%q) = %d, want -1", tagged, n, absent, got)
				}
			}
		}
	}
}
