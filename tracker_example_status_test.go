package daemonplan_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan"
)

// Once the status a plan asks for is written, the Tracker is told with
// SetStatus (not SetDaemonSet, which decides every node again), and the
// next plan has no status to write.
func ExampleTracker_SetStatus() {
	p, err := daemonplan.NewTracker(exampleInput(), daemonplan.Options{})
	if err != nil {
		panic(err)
	}
	plan, err := p.Plan()
	if err != nil {
		panic(err)
	}
	fmt.Println("status to write:", plan.StatusChanged)
	p.SetStatus(plan.Status)
	plan, err = p.Plan()
	if err != nil {
		panic(err)
	}
	fmt.Println("status to write:", plan.StatusChanged)
	// Output:
	// status to write: true
	// status to write: false
}
