package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// Case is one conformance case, read from its folder.
type Case struct {
	Name string // folder name, e.g. "seed-01"
	Dir  string
	// Cluster is cluster.json: a kubectl List.
	Cluster []byte
	// Now is now.txt: the instant of the sync.
	Now time.Time
	// Expected is expected.json as read (for Compare); Want is it decoded.
	Expected []byte
	Want     Expected
}

// CasesDir returns kube/testdata/conformance/cases of this checkout.
func CasesDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("conformance.CasesDir: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "conformance", "cases")
}

// Set is one set of recorded cases and the Kubernetes minor whose
// controller decided them.
type Set struct {
	Version string // "1.34"
	Dir     string
}

// Sets returns the sets of cases: kube/testdata/conformance/cases,
// decided by v1.34.4, cases-v1.37, decided by v1.37.2, and found-v1.37,
// clusters on which daemonplan once disagreed with the v1.37.2 controller
// run side by side (its README).
func Sets() []Set {
	dir := filepath.Dir(CasesDir())
	return []Set{
		{Version: "1.34", Dir: CasesDir()},
		{Version: "1.37", Dir: filepath.Join(dir, "cases-v1.37")},
		{Version: "1.37", Dir: filepath.Join(dir, "found-v1.37")},
	}
}

// Cases reads every case under dir, sorted by name.
func Cases(dir string) ([]Case, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c, err := ReadCase(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("conformance: no cases under %s", dir)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}

// ReadCase reads the case in dir.
func ReadCase(dir string) (Case, error) {
	c := Case{Name: filepath.Base(dir), Dir: dir}
	var err error
	if c.Cluster, err = os.ReadFile(filepath.Join(dir, "cluster.json")); err != nil {
		return c, err
	}
	if c.Expected, err = os.ReadFile(filepath.Join(dir, "expected.json")); err != nil {
		return c, err
	}
	if err := json.Unmarshal(c.Expected, &c.Want); err != nil {
		return c, fmt.Errorf("conformance: %s/expected.json: %w", c.Name, err)
	}
	now, err := os.ReadFile(filepath.Join(dir, "now.txt"))
	if err != nil {
		return c, err
	}
	if c.Now, err = time.Parse(time.RFC3339, strings.TrimSpace(string(now))); err != nil {
		return c, fmt.Errorf("conformance: %s/now.txt: %w", c.Name, err)
	}
	return c, nil
}

// SkipIfAbsent skips t when the cases are not there: kube/testdata is a
// module of its own so that it stays out of the kube module's zip, and a
// copy of the kube module from a module proxy has no cases. In a checkout
// (where kube/testdata/go.mod exists) the cases are read and any problem
// fails the test.
func SkipIfAbsent(t testing.TB) {
	t.Helper()
	marker := filepath.Join(CasesDir(), "..", "..", "go.mod")
	if _, err := os.Stat(marker); err != nil {
		t.Skipf("no conformance cases in this copy of the kube module (%s: %v)", marker, err)
	}
}

// SmallestCases returns the n cases of this checkout with the smallest
// cluster.json, smallest first: the fuzz targets' seeds, small enough to
// keep every run fast. Without cases (see SkipIfAbsent) it returns none.
func SmallestCases(n int) ([]Case, error) {
	if _, err := os.Stat(CasesDir()); err != nil {
		return nil, nil
	}
	cases, err := Cases(CasesDir())
	if err != nil {
		return nil, err
	}
	sort.SliceStable(cases, func(i, j int) bool { return len(cases[i].Cluster) < len(cases[j].Cluster) })
	return cases[:min(n, len(cases))], nil
}
