package testbed

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestScale is the cost run, not run by default: with TESTBED_SCALE=N,
// a DaemonSet (maxUnavailable 10%) created on N kwok nodes and rolled out
// to a new image, under each controller on a fresh control plane, both
// controllers as programs of their own (upstream's as
// cmd/upstream-controller) so that each one's CPU time is its process's
// (user + system, from its process state once stopped, which includes
// its start and informers' lists). It compares and checks the runs as
// every scenario and logs the ratios daemonplan / upstream.
//
//	TESTBED_SCALE=1000 go test -run TestScale -v -timeout 60m
func TestScale(t *testing.T) {
	env := os.Getenv("TESTBED_SCALE")
	if env == "" {
		t.Skip("set TESTBED_SCALE to a number of nodes to run it")
	}
	n, err := strconv.Atoi(env)
	if err != nil || n < 1 {
		t.Fatalf("TESTBED_SCALE=%q: not a number of nodes", env)
	}
	nodes := make([]string, n)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("node-%05d", i)
	}
	sc := scenario{
		name:  fmt.Sprintf("scale-%d", n),
		nodes: nodes,
		ds: func(ds *appsv1.DaemonSet) {
			tenth := intstr.FromString("10%")
			ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &tenth
		},
		phases: []phase{
			{name: "rollout", do: setImage("agent:v2"), done: converged("agent:v2", nodes), unavailable: limit((n + 9) / 10)},
		},
		timeout:   30 * time.Minute,
		processes: true,
	}
	runs := map[controllerKind]*Run{}
	for _, kind := range []controllerKind{upstreamKind, daemonplanKind} {
		t.Run(string(kind), func(t *testing.T) {
			runs[kind] = runOne(t, kind, sc)
		})
	}
	up, dp := runs[upstreamKind], runs[daemonplanKind]
	if up == nil || dp == nil {
		t.Fatal("a run did not finish")
	}
	compareRuns(t, sc, up, dp)
	t.Logf("%s: cost, daemonplan / upstream\n%s", sc.name, costTable(up, dp))
}

// costTable is the controllers' CPU time, writes and times to converge
// side by side, with the ratio daemonplan / upstream.
func costTable(up, dp *Run) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "\tupstream\tdaemonplan\tratio")
	ratio := func(u, d float64) string {
		if u == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", d/u)
	}
	fmt.Fprintf(w, "controller CPU\t%v\t%v\t%s\n", up.CPU.Round(time.Millisecond), dp.CPU.Round(time.Millisecond), ratio(up.CPU.Seconds(), dp.CPU.Seconds()))
	count := func(r *Run, events bool) int {
		n := 0
		for k, c := range r.Writes {
			if strings.Contains(k, " events") == events {
				n += c
			}
		}
		return n
	}
	u, d := count(up, false), count(dp, false)
	fmt.Fprintf(w, "API writes (no Events)\t%d\t%d\t%s\n", u, d, ratio(float64(u), float64(d)))
	u, d = count(up, true), count(dp, true)
	fmt.Fprintf(w, "Event writes\t%d\t%d\t%s\n", u, d, ratio(float64(u), float64(d)))
	for i, p := range up.Phases {
		if i < len(dp.Phases) {
			fmt.Fprintf(w, "%s: time to converge\t%v\t%v\t%s\n", p.Name, p.Took.Round(time.Millisecond), dp.Phases[i].Took.Round(time.Millisecond), ratio(p.Took.Seconds(), dp.Phases[i].Took.Seconds()))
		}
	}
	w.Flush()
	return b.String()
}
