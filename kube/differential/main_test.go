package differential

import (
	"flag"
	"os"
	"sync/atomic"
	"testing"

	"github.com/daemonplan/daemonplan/internal/testsupport/rapidrun"
)

// defaultChecks is the number of cases each property runs unless
// -rapid.checks is given on the command line.
const defaultChecks = "3000"

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.checks" {
			set = true
		}
	})
	if !set {
		if err := flag.Set("rapid.checks", defaultChecks); err != nil {
			panic(err)
		}
	}
	// no fail files unless asked for (docs/development.md, "Property tests")
	if err := rapidrun.Configure(flag.CommandLine, os.LookupEnv); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// counter counts the cases of a property and the outcomes it saw, so that a
// test can report that the generators exercise both sides.
type counter struct {
	cases, a, b atomic.Int64
}

func (c *counter) report(t *testing.T, a, b string) {
	t.Helper()
	t.Logf("%d cases agreed (%s: %d, %s: %d)", c.cases.Load(), a, c.a.Load(), b, c.b.Load())
	if c.a.Load() == 0 || c.b.Load() == 0 {
		t.Errorf("generator never produced one of the outcomes: %s=%d %s=%d", a, c.a.Load(), b, c.b.Load())
	}
}
