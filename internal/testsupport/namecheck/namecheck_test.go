package namecheck

import (
	"strings"
	"testing"
)

// TestRepository: no exported type name of the public packages of either
// module means two things.
func TestRepository(t *testing.T) {
	exported, err := Exported("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(exported["Plan"]) == 0 || len(exported["Catalog"]) == 0 {
		t.Fatalf("found no Plan or Catalog type under ../../..: not the repository")
	}
	for _, f := range Check(exported) {
		t.Error(f)
	}
}

// TestCheck: a name two packages export is a finding, unless it is shared
// on purpose or the second is kube/schema's mirror of the first.
func TestCheck(t *testing.T) {
	got := Check(map[string][]string{
		"Report":  {"overhead", "whatif"},
		"Options": {".", "placement"},
		"Plan":    {".", "kube/schema"},
		"Set":     {"taints"},
	})
	if len(got) != 1 || !strings.HasPrefix(got[0], "Report is exported by overhead, whatif") {
		t.Errorf("Check = %q, want one finding, for Report", got)
	}
}
