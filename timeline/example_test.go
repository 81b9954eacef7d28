package timeline_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

// A new image on three nodes with maxUnavailable 1, node-1's new pod never
// becoming Ready: the rollout stalls and the stall is named.
func ExampleRun() {
	c := settled(panicT{}, 3, maxUnavailable(1), 30*time.Second)
	c.FateOf = hangOn("node-1")
	c.Update(template("agent:v2"), "")
	tl, err := timeline.Run(c, timeline.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(tl.Summary())
	fmt.Println(tl.Check())
	for _, s := range tl.Syncs {
		fmt.Printf("%v +%d -%d updated %d/%d\n", s.At, s.Creates, s.Deletes, s.Updated, s.Desired)
	}
	// Output:
	// stalled after 1m0s (2 steps, 7 syncs): node-1 pod agent-bbbbh never became Ready; maxUnavailable 1 used up
	// <nil>
	// 0s +0 -1 updated 0/3
	// 0s +1 -0 updated 0/3
	// 0s +0 -0 updated 1/3
	// 30s +0 -1 updated 1/3
	// 30s +1 -0 updated 1/3
	// 30s +0 -0 updated 2/3
	// 1m0s +0 -0 updated 2/3
}

// A share of pods fails, decided by the seed and each pod's name: the run
// is the same every time.
func ExampleFailures() {
	c := settled(panicT{}, 10, maxUnavailable(2), 30*time.Second)
	c.FateOf = timeline.Failures(0.25, 3)
	c.Update(template("agent:v2"), "")
	tl, _ := timeline.Run(c, timeline.Options{})
	failed := 0
	for _, n := range tl.Nodes {
		failed += len(n.Failures)
	}
	fmt.Println(tl.Outcome, "with", failed, "failed pods")
	fmt.Println(timeline.Failures(1, 3)("node-0", &api.Pod{Name: "agent-x"}) == sim.Fail)
	// Output:
	// Converged with 3 failed pods
	// true
}

// WriteHTML writes one self-contained page.
func ExampleWriteHTML() {
	c := settled(panicT{}, 2, maxUnavailable(1), 30*time.Second)
	c.Update(template("agent:v2"), "")
	tl, _ := timeline.Run(c, timeline.Options{})
	var buf bytes.Buffer
	if err := timeline.WriteHTML(&buf, tl, timeline.HTMLOptions{}); err != nil {
		panic(err)
	}
	fmt.Println(strings.SplitN(buf.String(), "\n", 2)[0])
	fmt.Println(strings.Count(buf.String(), `class="node-row"`), "rows")
	// Output:
	// <!DOCTYPE html>
	// 2 rows
}

// panicT lets the test helpers run in an example.
type panicT struct{}

func (panicT) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (panicT) FailNow()                          { panic("FailNow") }

// Fates draws once per pod: below the fail rate it fails, then up to the
// crash rate it crash-loops, else it becomes Ready. The same seed fails the
// same pods whatever the crash rate.
func ExampleFates() {
	fate := timeline.Fates(0.1, 0.2, 7)
	counts := map[sim.Fate]int{}
	for i := range 1000 {
		counts[fate("node", &api.Pod{Name: fmt.Sprintf("agent-%d", i)})]++
	}
	fmt.Println("failed", counts[sim.Fail], "crash-looping", counts[sim.CrashLoop], "ready", counts[sim.BecomeReady])
	// Output:
	// failed 77 crash-looping 220 ready 703
}
