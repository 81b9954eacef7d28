package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/progressive"
	"github.com/daemonplan/daemonplan/kube/schema"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
	"github.com/daemonplan/daemonplan/whatif"
)

var simulateOutputs = []string{"table", "json"}

// simulateOptions are the parsed flags of "simulate".
type simulateOptions struct {
	common
	change
	dsFile   string
	failRate float64
	// crashRate is the share of new pods that crash-loop, restarting on
	// crashBackoff (the kubelet's doubling back-off from it).
	crashRate    float64
	crashBackoff time.Duration
	seed         uint64
	html         string
	output       string
	// policy is the progressive rollout's policy: its file is
	// --rollout-policy; the flags are rollout start's.
	policy policyFlags
	timing
	cmd *cobra.Command
}

func (c *cli) simulateCmd() *cobra.Command {
	o := simulateOptions{output: "table", seed: 1, crashBackoff: sim.DefaultCrashBackoff, timing: defaultTiming()}
	cmd := &cobra.Command{
		Use:   "simulate [ds/NAME] [--ds-file NEW_DS.yaml | --image CONTAINER=IMAGE] | -f FILE [--ds-file NEW_DS.yaml] [--ready-after 10s] [--grace-period 30s] [--fail-rate R] [--crash-rate R [--crash-backoff 10s]] [--seed N] [--html OUT.html] [-o table|json]",
		Short: "Simulate a rollout sync by sync to convergence or to a stall, and draw its timeline",
		Long: `Drive the DaemonSet's rollout through an in-memory cluster, sync by sync, as
the controller would: each sync's creates are applied at once, new pods become
Ready --ready-after after they are created (or fail, at --fail-rate, or
crash-loop, at --crash-rate: Running, never Ready, restarted --crash-backoff
after their first exit, then after twice that, up to 5 minutes, as the
kubelet restarts them), deleted
pods go --grace-period later (the template's terminationGracePeriodSeconds
unless given; their node gets its new pod then); after a sync that wrote, the
next follows at once (the controller's own writes queue it), otherwise the
clock jumps to the next pod becoming Ready, available (minReadySeconds) or
gone, or the next requeue. It stops when a sync writes nothing, nothing is
left to wait for and the rollout is done (converged: the predicted duration is
printed), or when it cannot go on (stalled: the nodes that hold the rollout and
why are named), or at --max-syncs or --max-duration (no prediction then). diff
runs the same simulation with the same defaults. Nothing is written to any
cluster.

With --ds-file the cluster's DaemonSet is updated to the one in that file, read
as diff reads it (one printed by kubectl get, with its uid, replaces the spec;
a manifest is merged in as kubectl apply merges it), and stored as the API
server would store the update (the generation and the template generation go
up when the spec and template change; the status is kept); that rollout is
simulated. Without it the cluster as found is driven on.

Pods already in the cluster that are Pending become Ready --ready-after after
their creation; pods Running but not Ready stay so; pods terminating go
--terminating after the start. Failures and crash loops are decided per
pod by --seed and the pod's name, so a run is reproducible. docs/timeline.md
states the rules.

  %[1]s simulate -f cluster.yaml --ds-file agent-v2.yaml --ready-after 45s --grace-period 10s --html rollout.html
  %[1]s simulate -f cluster.yaml --fail-rate 0.05 --seed 7 -o json

Output formats (-o):
  table  one row per sync (time offset, creates, deletes, updated, available,
         desired, unavailable), then the outcome (default)
  json   the simulation document (package kube/schema, type Simulation):
         {"daemonSet", "outcome", "summary", "stall", "duration", "steps",
         "syncs":[...], "revisions":[...], "nodes":[{"name", "intervals":
         [{"from", "to", "pods":[{"name", "hash", "state"}]}], "failures"}]}

With --rollout-policy FILE (a policy as 'rollout start --policy' reads it,
docs/progressive-live.md), or rollout start's policy flags (--canary, --zones,
--max-unavailable, --ready-deadline, ...), the rollout simulated is the one
'daemonplan rollout' drives: the DaemonSet planned as the driver plans it (RollingUpdate with the
policy's maxUnavailable and maxSurge 0), its phases moved before each sync by
the driver's own code (kube/progressive: canary, zones in order, the rest),
the operator answering at once (the canary promoted as soon as it waits, a
pause point resumed as soon as it is reached); the phases and when they began
are printed after the table (in -o json: "phases"). The health gates judge the
simulated pods as the driver judges live ones: a new pod that fails
(--fail-rate), restarts more than the policy's maxRestarts times (--crash-rate,
--crash-backoff), or is not Ready by its readyDeadline (a --ready-after longer
than it) pauses or aborts the rollout, and the simulation stops there. Not modelled: the
driver's step interval (each phase's new pods are seen available at once).

Exit status is 0 when the simulation ran, whether it converged or stalled
(the outcome is printed); 1 for bad input, 2 for a usage error.`,
		Args: dsArg("simulate", &o.common),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.cmd = cmd
			return c.simulate(&o)
		},
	}
	cmd.Long = fmt.Sprintf(cmd.Long, c.name)
	addCommon(cmd, &o.common)
	addChange(cmd, &o.change)
	f := cmd.Flags()
	f.StringVar(&o.dsFile, "ds-file", "", "the new DaemonSet, whose rollout to simulate: 'kubectl get ds -o yaml' output,\nor a manifest for 'kubectl apply'; '-' reads standard input")
	f.Float64Var(&o.failRate, "fail-rate", 0, "the share of new pods that fail instead of becoming Ready, 0 to 1")
	f.Float64Var(&o.crashRate, "crash-rate", 0, "the share of new pods that crash-loop (Running, never Ready, restarting), 0 to 1;\nwith --fail-rate, at most 1 together")
	f.DurationVar(&o.crashBackoff, "crash-backoff", o.crashBackoff, "a crash-looping pod's first restart back-off, doubled at each restart up to 5m\n(the kubelet's default; set it to your nodes' own)")
	f.Uint64Var(&o.seed, "seed", o.seed, "the seed that decides which pods fail or crash-loop (with --fail-rate, --crash-rate)")
	f.StringVar(&o.html, "html", "", "also write the timeline to this file: one self-contained HTML page")
	f.StringVarP(&o.output, "output", "o", "table", "output format: "+strings.Join(simulateOutputs, "|"))
	f.StringVar(&o.policy.file, "rollout-policy", "", "simulate the progressive rollout 'daemonplan rollout' drives under this policy\n(a JSON file as 'rollout start --policy' reads it; '-' reads standard input)")
	addPolicyFlags(f, &o.policy)
	addTimingFlags(cmd, &o.timing)
	return cmd
}

// simulate runs "simulate" with parsed options.
func (c *cli) simulate(o *simulateOptions) error {
	switch {
	case !slices.Contains(simulateOutputs, o.output):
		return usagef("simulate: -o %q: want one of %s", o.output, strings.Join(simulateOutputs, ", "))
	case !(o.failRate >= 0 && o.failRate <= 1):
		return usagef("simulate: --fail-rate %v: want a number from 0 to 1", o.failRate)
	case !(o.crashRate >= 0 && o.crashRate <= 1):
		return usagef("simulate: --crash-rate %v: want a number from 0 to 1", o.crashRate)
	case o.failRate+o.crashRate > 1:
		return usagef("simulate: --fail-rate %v and --crash-rate %v: together at most 1", o.failRate, o.crashRate)
	case o.crashBackoff <= 0:
		return usagef("simulate: --crash-backoff %v: want a positive duration", o.crashBackoff)
	}
	if err := o.timing.check(o.cmd, "simulate"); err != nil {
		return err
	}
	if err := c.filesHoldCluster("simulate", &o.common, o.dsFile); err != nil {
		return err
	}
	in, err := c.load("simulate", &o.common)
	if err != nil {
		return err
	}
	old := in.cluster.DaemonSet
	if o.dsFile != "" || len(o.images) > 0 {
		// Read as diff reads it: a manifest is merged into the live
		// DaemonSet as kubectl apply merges, so that restating the live
		// spec changes nothing.
		nds, at, k, err := c.newSpec("simulate", in, o.dsFile, o.images)
		if err != nil {
			return err
		}
		edited := *in.cluster
		edited.DaemonSet, edited.At.DaemonSet = nds, at
		in.cluster = &edited
		if k != nil {
			in.kruise = k
		}
	}
	// One plan of the (edited) cluster: --strict refuses it here, and its
	// warnings are printed once.
	if _, err := c.sync("simulate", in, o.strict); err != nil {
		return err
	}
	var ps *progressive.Simulation
	if o.policy.file != "" || byPolicyFlags(o.cmd) {
		pol, err := c.policy(o.cmd, &o.policy, "simulate", "--rollout-policy")
		if err != nil {
			return err
		}
		ps = progressive.NewSimulation(pol)
	}
	cl, err := simulateCluster(in, old, o)
	if err != nil {
		return c.fail("simulate: %v", err)
	}
	topts := timeline.Options{MaxSyncs: o.maxSyncs, MaxDuration: o.maxDuration,
		Terminating: o.terminating, ResyncAfter: o.resyncAfter}
	if ps != nil {
		ps.Prepare(cl)
		topts.BeforeSync, topts.Wake = ps.BeforeSync, ps.Wake
	}
	tl, err := timeline.Run(cl, topts)
	if err != nil {
		return c.fail("simulate: %v", err)
	}
	if o.html != "" {
		if err := writeHTMLFile(o.html, tl); err != nil {
			return c.fail("simulate: --html: %v", err)
		}
	}
	if o.output == "json" {
		return c.writeJSON("simulate", simulationJSON(tl, in, o, ps))
	}
	if err := writeSimulationTable(c.stdout, tl); err != nil {
		return err
	}
	if ps != nil {
		return writeSimulatedPhases(c.stdout, tl, ps)
	}
	return nil
}

// writeSimulatedPhases prints the phases of a simulated progressive
// rollout and when each began, as offsets from the start.
func writeSimulatedPhases(w io.Writer, tl *timeline.Timeline, ps *progressive.Simulation) error {
	t := newTable(w, 3)
	t.blank()
	t.line("phases of the progressive rollout (the operator answering at once):")
	t.row("TIME", "PHASE", "ZONE", "ANSWER")
	for _, ch := range ps.Changes {
		answer := ch.Answer
		if ch.Reason != "" {
			answer += " (" + ch.Reason + ")"
		}
		if ch.Gate != "" {
			answer = "none: " + ch.Gate
		}
		t.row(fmt.Sprintf("+%v", ch.At.Sub(tl.Start)), string(ch.Phase), orDash(ch.Zone), orDash(answer))
	}
	return t.flush()
}

// simulateCluster converts the input into a sim.Cluster: the DaemonSet
// edited as the API server stores an update when it is not old, and the
// options of the plan command.
func simulateCluster(in *input, old *appsv1.DaemonSet, o *simulateOptions) (*sim.Cluster, error) {
	before, opts, err := syncInput(in)
	if err != nil {
		return nil, err
	}
	start := before
	if in.cluster.DaemonSet != old {
		cur := before.DaemonSet
		if before.DaemonSet, err = convert.DaemonSet(old); err != nil {
			return nil, err
		}
		if start, err = whatif.Edit(before, daemonplan.Input{DaemonSet: cur}); err != nil {
			return nil, err
		}
	}
	cl := sim.FromInput(start)
	cl.ReadyAfter = o.readyAfter
	cl.GracePeriod = o.grace(old)
	cl.Options = opts
	if o.failRate > 0 || o.crashRate > 0 {
		cl.FateOf = timeline.Fates(o.failRate, o.crashRate, o.seed)
	}
	cl.CrashBackoff = o.crashBackoff
	return cl, nil
}

// writeHTMLFile writes the timeline page to path.
func writeHTMLFile(path string, tl *timeline.Timeline) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := timeline.WriteHTML(f, tl, timeline.HTMLOptions{}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeSimulationTable prints one row per sync, then the outcome.
func writeSimulationTable(w io.Writer, tl *timeline.Timeline) error {
	t := newTable(w, 3)
	t.row("SYNC", "TIME", "CREATES", "DELETES", "UPDATED", "AVAILABLE", "DESIRED", "UNAVAILABLE")
	for i, s := range tl.Syncs {
		t.row(i+1, fmt.Sprintf("+%v", s.At), s.Creates, s.Deletes, s.Updated, s.Available, s.Desired, s.Unavailable)
	}
	budget := ""
	if n := len(tl.Syncs); n > 0 && tl.Strategy == "RollingUpdate" {
		budget = fmt.Sprintf(", maxUnavailable %d, maxSurge %d", tl.Syncs[n-1].MaxUnavailable, tl.Syncs[n-1].MaxSurge)
	}
	t.blank()
	if tl.Outcome == timeline.Converged {
		t.line(fmt.Sprintf("predicted duration %v (%s%s)", tl.Duration, tl.Strategy, budget))
	} else {
		// What stopped it, and no prediction: the rollout did not finish.
		t.line(fmt.Sprintf("no predicted duration: the rollout did not finish (%s%s)", tl.Strategy, budget))
	}
	t.line(tl.Summary())
	return t.flush()
}

// simulationJSON renders a timeline as the document of -o json.
func simulationJSON(tl *timeline.Timeline, in *input, o *simulateOptions, ps *progressive.Simulation) schema.Simulation {
	doc := schema.Simulation{
		DaemonSet:         schema.Ref{Namespace: tl.Namespace, Name: tl.Name},
		KubernetesVersion: in.version.String(),
		Strategy:          string(tl.Strategy),
		Start:             tl.Start.UTC().Format(time.RFC3339),
		ReadyAfter:        o.readyAfter.String(),
		GracePeriod:       o.grace(in.cluster.DaemonSet).String(),
		FailRate:          o.failRate,
		CrashRate:         o.crashRate,
		CrashBackoff:      o.crashBackoff.String(),
		Seed:              o.seed,
		Outcome:           tl.Outcome.String(),
		Summary:           tl.Summary(),
		Duration:          tl.Duration.String(),
		Steps:             tl.Steps,
		Outdated:          tl.Outdated,
		Syncs:             []schema.SimulationSync{},
		Revisions:         []schema.SimulationRevision{},
		Nodes:             []schema.SimulationNode{},
		Phases:            []schema.SimulationPhase{},
	}
	if ps != nil {
		for _, ch := range ps.Changes {
			doc.Phases = append(doc.Phases, schema.SimulationPhase{At: ch.At.Sub(tl.Start).String(), Phase: string(ch.Phase), Zone: ch.Zone,
				Answer: ch.Answer, Reason: ch.Reason, Gate: ch.Gate})
		}
	}
	if s := tl.Stall; s != nil {
		st := &schema.Stall{Kind: s.Kind.String(), Message: s.String(), Budget: s.Budget, Held: s.Held.String(), Holders: []schema.StallHolder{}}
		for _, h := range s.Holders {
			st.Holders = append(st.Holders, schema.StallHolder{Node: h.Node, Pod: h.Pod, Why: h.Why})
		}
		doc.Stall = st
	}
	for _, s := range tl.Syncs {
		doc.Syncs = append(doc.Syncs, schema.SimulationSync{At: s.At.String(), Creates: s.Creates, Deletes: s.Deletes,
			Desired: s.Desired, Updated: s.Updated, Available: s.Available, Unavailable: s.Unavailable,
			MaxUnavailable: s.MaxUnavailable, MaxSurge: s.MaxSurge})
	}
	for _, r := range tl.Revisions {
		doc.Revisions = append(doc.Revisions, schema.SimulationRevision{Hash: r.Hash, Revision: r.Number, Current: r.Current})
	}
	for _, n := range tl.Nodes {
		sn := schema.SimulationNode{Name: n.Name, Intervals: []schema.SimulationSpan{}, Failures: []schema.SimulationFailure{}}
		for _, iv := range n.Intervals {
			sp := schema.SimulationSpan{From: iv.From.String(), To: iv.To.String(), Pods: []schema.SimulationPod{}}
			for _, p := range iv.Pods {
				sp.Pods = append(sp.Pods, schema.SimulationPod{Name: p.Name, Hash: p.Hash, State: p.State.String()})
			}
			sn.Intervals = append(sn.Intervals, sp)
		}
		for _, f := range n.Failures {
			sn.Failures = append(sn.Failures, schema.SimulationFailure{At: f.At.String(), Pod: f.Pod})
		}
		doc.Nodes = append(doc.Nodes, sn)
	}
	return doc
}
