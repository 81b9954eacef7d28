package plantest_test

import (
	"flag"
	"fmt"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
)

// A property test of your own, run twice: against daemonplan.Sync, where
// it holds, and against a planner with a bug, where it fails and names
// the invariant broken. In a _test.go file the property is
//
//	func TestMyPlanner(t *testing.T) {
//		rapid.Check(t, holds(myPlanner))
//	}
//
// Here rapid.Check reports to a recorder instead of a *testing.T, so that
// the example can print the outcome.
func Example_propertyTest() {
	// holds is the property: on every snapshot drawn, the plan keeps every
	// invariant. It remembers the first invariant it saw broken.
	var broken []plantest.Invariant
	holds := func(plan func(daemonplan.Input) (daemonplan.Plan, error)) func(*rapid.T) {
		return func(t *rapid.T) {
			c := plantest.Snapshots(plantest.Options{Rollout: true, Orphans: true, Failed: true}).Draw(t, "snapshot")
			p, err := plan(c.Input)
			if err != nil {
				t.Fatal(err)
			}
			if err := plantest.CheckSync(c.Input, p); err != nil {
				for _, inv := range []plantest.Invariant{plantest.Ownership, plantest.MaxUnavailable, plantest.PodsPerNode} {
					if plantest.Violated(err, inv) && len(broken) == 0 {
						broken = append(broken, inv)
					}
				}
				t.Fatal(err)
			}
		}
	}
	sync := func(in daemonplan.Input) (daemonplan.Plan, error) { return daemonplan.Sync(in, daemonplan.Options{}) }
	// greedy is a planner with a bug: it also deletes the pods of other
	// controllers that sit in the DaemonSet's namespace, selected or not.
	greedy := func(in daemonplan.Input) (daemonplan.Plan, error) {
		p, err := sync(in)
		for _, pod := range in.Pods {
			if pod.Namespace == in.DaemonSet.Namespace && pod.Controller != nil && pod.Controller.UID != in.DaemonSet.UID {
				p.Delete = append(p.Delete, placement.Delete{Pod: pod.Name, Node: pod.NodeName, Reason: placement.Duplicate})
			}
		}
		return p, err
	}

	// A failing property leaves no failure file behind in an example.
	_ = flag.Set("rapid.nofailfile", "true")
	for _, run := range []struct {
		name string
		plan func(daemonplan.Input) (daemonplan.Plan, error)
	}{{"daemonplan.Sync", sync}, {"greedy", greedy}} {
		broken = nil
		rec := &recorder{}
		rapid.Check(rec, holds(run.plan))
		fmt.Printf("%s: holds %v, broken %v\n", run.name, !rec.Failed(), broken)
	}
	// Output:
	// daemonplan.Sync: holds true, broken []
	// greedy: holds false, broken [Ownership]
}

// recorder is a rapid.TB that keeps only whether the property failed.
type recorder struct{ failed bool }

func (r *recorder) Helper()               {}
func (r *recorder) Name() string          { return "Example_propertyTest" }
func (r *recorder) Logf(string, ...any)   {}
func (r *recorder) Log(...any)            {}
func (r *recorder) Skipf(string, ...any)  {}
func (r *recorder) Skip(...any)           {}
func (r *recorder) SkipNow()              {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Error(...any)          { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }
func (r *recorder) FailNow()              { r.failed = true }
func (r *recorder) Fail()                 { r.failed = true }
func (r *recorder) Failed() bool          { return r.failed }
