package load

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/scheme"
)

// TestBuiltinKinds keeps the loader's table of core and apps kinds equal
// to what client-go's scheme (the one kubectl is built with) knows, so
// that an object kubectl reads is never refused, nor a kind it would not
// know ignored. The loader keeps its own table: the scheme would double
// the binary's size.
func TestBuiltinKinds(t *testing.T) {
	for group, versions := range builtinKinds {
		for version, kinds := range versions {
			var want []string
			for gvk := range scheme.Scheme.AllKnownTypes() {
				if gvk.Group == group && gvk.Version == version && gvk.Kind != "WatchEvent" &&
					(!strings.HasSuffix(gvk.Kind, "List") || gvk.Kind == "List") && !strings.HasSuffix(gvk.Kind, "Options") {
					want = append(want, gvk.Kind)
				}
			}
			slices.Sort(want)
			if !slices.Equal(want, kinds) {
				t.Errorf("group %q version %s: the table lists %q, client-go's scheme %q", group, version, kinds, want)
			}
		}
	}
}
