package placement_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPropertyIndexChecksPods: Index refuses a pod list exactly when
// api.ValidatePods finds something, with its findings. The lists drawn here
// repeat names and UIDs, leave names empty, hold invalid UTF-8, and come
// sorted or not: about one in eight is valid. (Index proves a valid list
// valid without allocating; a fast check that wrongly doubted a valid list
// would only fall back to api.ValidatePods here, and is caught by
// ExampleCluster_Keep and the allocation benchmarks instead.)
func TestPropertyIndexChecksPods(t *testing.T) {
	c, err := placement.Compile(newDS(), placement.Options{})
	if err != nil {
		t.Fatal(err)
	}
	str := func(pool ...string) *rapid.Generator[string] {
		return rapid.SampledFrom(append(pool, "\xff"))
	}
	rapid.Check(t, func(t *rapid.T) {
		pods := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) api.Pod {
			p := api.Pod{
				Namespace: str("default", "other").Draw(t, "namespace"),
				Name:      str("a", "b", "c", "d", "e", "").Draw(t, "name"),
				UID:       str("", "", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8").Draw(t, "uid"),
				NodeName:  str("", "node-0").Draw(t, "node"),
			}
			// invalid UTF-8 only now and then, so that the other faults show
			for _, s := range []*string{&p.Namespace, &p.Name, &p.UID, &p.NodeName} {
				if *s == "\xff" && rapid.IntRange(0, 4).Draw(t, "keepInvalid") > 0 {
					*s = "x"
				}
			}
			return p
		}), 2, 8).Draw(t, "pods")
		if rapid.Bool().Draw(t, "sorted") {
			slices.SortFunc(pods, func(a, b api.Pod) int {
				return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
			})
		}
		want := api.ValidatePods(pods)
		_, err := c.Index(nil, pods)
		if (err != nil) != (len(want) > 0) {
			t.Fatalf("Index() error %v, api.ValidatePods() %v", err, want)
		}
		if err != nil {
			if diff := cmp.Diff(want.Error(), err.Error()); diff != "" {
				t.Fatalf("Index() error mismatch (-ValidatePods +Index):\n%s", diff)
			}
		}
	})
}
