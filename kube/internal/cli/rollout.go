package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/daemonplan/daemonplan/kube/progressive"
	"github.com/daemonplan/daemonplan/kube/schema"
)

// Exit codes of the rollout commands, beyond exitOK, exitError and
// exitUsage.
const (
	// exitGate: the rollout is paused by a failed health gate.
	exitGate = 3
	// exitAborted: the rollout is aborted.
	exitAborted = 4
	// exitWaiting: --watch stopped at a point that waits for the operator
	// (a canary waiting for promote, a pause point, a pause by the user).
	exitWaiting = 5
)

const rolloutLong = `Roll a DaemonSet out progressively on the cluster of the kubeconfig: a canary,
then zone by zone, then the rest, under one cluster-wide maxUnavailable, with
health gates, pause, resume, promote, abort and undo.

The DaemonSet stays a stock apps/v1 DaemonSet with updateStrategy OnDelete: the
cluster's DaemonSet controller creates every pod (on a node without one, from
the current template); %[1]s rollout only deletes outdated pods, and
decides which and when with daemonplan's planner (the rolling update of the
DaemonSet as if it were on RollingUpdate with the policy's budget). A
DaemonSet on RollingUpdate is refused, with the command that switches it
(or 'rollout start --switch-strategy' switches it, and back when done).
There is no surge: under OnDelete the controller creates a pod only where none
is, so an old and a new pod never run side by side on a node.

The policy and the state live in the DaemonSet's annotation
daemonplan.io/rollout: any later invocation, from any machine, goes on from
there. Every write of it carries the DaemonSet's resourceVersion, and pods are
deleted only after it is written (each delete with the pod's UID and
resourceVersion as preconditions), so two drivers at once, or a driver killed
at any moment, never take more nodes down than the budget.

  kubectl patch daemonset node-agent -n kube-system --type merge \
    -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'
  %[1]s rollout start ds/node-agent -n kube-system --canary 2 --zones a,b,c --max-unavailable 1
  kubectl set image ds/node-agent -n kube-system agent=registry/agent:v2
  %[1]s rollout resume ds/node-agent -n kube-system --watch
  %[1]s rollout status ds/node-agent -n kube-system
  %[1]s rollout promote ds/node-agent -n kube-system --watch

Or, instead of --watch, one long-running driver of every rollout of the
cluster (the state is on the DaemonSets; stop and start it at will):

  %[1]s rollout run -A --interval 5s

Exit status: 0 done, or (status) progressing; 1 error; 2 usage; 3 paused by a
failed health gate; 4 aborted; 5 (--watch) waiting for the operator: a canary
waiting for promote, a pause point, a pause by the user.`

// rolloutCmd is `rollout` and its subcommands.
func (c *cli) rolloutCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Roll a DaemonSet on OnDelete out progressively: canary, zones, budget, gates (writes to the cluster)",
		Long:  fmt.Sprintf(rolloutLong, c.name),
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return usagef("rollout: a subcommand is required: start, status, pause, resume, promote, abort, undo or run")
		},
	}
	cmd.AddCommand(c.rolloutStartCmd(), c.rolloutStatusCmd(), c.rolloutPauseCmd(), c.rolloutResumeCmd(),
		c.rolloutPromoteCmd(), c.rolloutAbortCmd(), c.rolloutUndoCmd(), c.rolloutRunCmd())
	return cmd
}

// watchOpts are the flags of --watch.
type watchOpts struct {
	watch    bool
	interval time.Duration
	timeout  time.Duration
}

func addWatch(cmd *cobra.Command, w *watchOpts) {
	f := cmd.Flags()
	f.BoolVarP(&w.watch, "watch", "w", false, "step the rollout until it is done, aborted, paused, or waits for a promote")
	f.DurationVar(&w.interval, "interval", 2*time.Second, "with --watch, the time between two steps")
	f.DurationVar(&w.timeout, "timeout", 0, "with --watch, give up after this long (0: never)")
}

// driver is the rollout engine on cn, recording its Events on the
// DaemonSets at once; an Event the API server refuses is a warning on
// standard error, never a failure.
func (c *cli) driver(cmd string, cn *conn) progressive.Driver {
	rec := &progressive.APIRecorder{Client: cn.client, Now: c.now, OnError: func(reason string, err error) {
		fmt.Fprintf(c.stderr, "%s: rollout %s: warning: Event %s not recorded: %v\n", c.name, cmd, reason, err)
	}}
	return progressive.Driver{Client: cn.client, Recorder: rec}
}

// rolloutTarget resolves the DaemonSet argument and connects.
func (c *cli) rolloutTarget(cmd string, args []string) (*conn, string, string, error) {
	// kubectl rollout takes TYPE NAME as well as TYPE/NAME.
	if len(args) == 2 && slices.Contains(daemonSetTypes, strings.ToLower(args[0])) && !strings.Contains(args[1], "/") {
		args = []string{args[0] + "/" + args[1]}
	}
	if len(args) != 1 {
		return nil, "", "", usagef("rollout %s: want one DaemonSet argument (ds/NAME or ds NAME), got %d", cmd, len(args))
	}
	name, err := parseDaemonSetArg(args[0])
	if err != nil {
		return nil, "", "", usagef("rollout %s: %v", cmd, err)
	}
	cn, err := c.connect("rollout " + cmd)
	if err != nil {
		return nil, "", "", err
	}
	return cn, cn.namespace, name, nil
}

// policyFlags are start's policy flags.
type policyFlags struct {
	file               string
	canary             string
	canarySelector     string
	zones              []string
	zoneKey            string
	zonesByLabel       bool
	pauseBetween       bool
	maxUnavailable     string
	maxSurge           string
	strict             bool
	minReady           int32
	pauseBefore        []string
	readyDeadline      time.Duration
	maxRestarts        int32
	onFailure          string
	maxRestartsChanged bool
}

func (c *cli) rolloutStartCmd() *cobra.Command {
	var p policyFlags
	var w watchOpts
	var switchStrategy bool
	cmd := &cobra.Command{
		Use:   "start ds/NAME [-n NAMESPACE] [--policy FILE | --canary N|N% --canary-selector SEL --zones A,B,C | --zones-by-label --max-unavailable N|N% ...] [--watch]",
		Short: "Start a progressive rollout of the DaemonSet's current template",
		Long: `Start a progressive rollout: record the policy on the DaemonSet, then (with
--watch) step it. The rollout takes the DaemonSet's current revision; change the
template after start (kubectl set image, kubectl apply) and the next step rolls
the new revision out, from the canary. The policy is a JSON file (--policy, the
fields of docs/progressive-live.md) or the flags below, not both.

--max-surge is refused unless 0: under updateStrategy OnDelete the DaemonSet
controller creates a pod only on a node without one, so no node can run an old
and a new pod side by side.

A DaemonSet on RollingUpdate is refused, with the command that switches it,
unless --switch-strategy: then the write that starts the rollout also switches
it to OnDelete, and records its strategy on the DaemonSet; the step that finds
the rollout done writes that strategy back. An aborted rollout stays on
OnDelete (back on RollingUpdate, the controller would roll the aborted
revision out itself): 'rollout undo' rolls the previous revision out and
switches back when it is done.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			pol, err := c.policy(cmd, &p, "rollout start", "--policy")
			if err != nil {
				return err
			}
			cn, ns, name, err := c.rolloutTarget("start", args)
			if err != nil {
				return err
			}
			ctx := context.Background()
			if _, err := c.driver("start", cn).StartWith(ctx, ns, name, pol, progressive.StartOptions{SwitchStrategy: switchStrategy}); err != nil {
				return c.rolloutErr("start", err)
			}
			fmt.Fprintf(c.stdout, "daemonset %s/%s: progressive rollout started\n", ns, name)
			return c.follow("start", cn, ns, name, w)
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.file, "policy", "", "the policy as a JSON file ('-' reads standard input)")
	addPolicyFlags(f, &p)
	f.BoolVar(&switchStrategy, "switch-strategy", false, "switch a DaemonSet on RollingUpdate to OnDelete for the rollout, and back when it is done")
	addWatch(cmd, &w)
	return cmd
}

// policyFlagNames are the flags addPolicyFlags adds.
var policyFlagNames = []string{"canary", "canary-selector", "zones", "zone-key", "zones-by-label", "pause-between-zones", "max-unavailable",
	"max-surge", "strict-budgets", "min-ready-seconds", "pause-before", "ready-deadline", "max-restarts", "on-failure"}

// addPolicyFlags adds the policy's flags, for `rollout start` and
// `simulate`; each command adds the policy file's flag itself.
func addPolicyFlags(f *pflag.FlagSet, p *policyFlags) {
	f.StringVar(&p.canary, "canary", "", "canary: how many nodes (N, or N% of the desired nodes, rounded up) take the new revision\nbefore 'rollout promote'")
	f.StringVar(&p.canarySelector, "canary-selector", "", "canary: only nodes matching this label selector (as kubectl -l); without --canary,\nevery matching node")
	f.StringSliceVar(&p.zones, "zones", nil, "after the canary, update the nodes zone by zone in this order (values of --zone-key);\nnodes of other zones and without the label go last")
	f.StringVar(&p.zoneKey, "zone-key", "", "the node label naming a node's zone (default topology.kubernetes.io/zone)")
	f.BoolVar(&p.zonesByLabel, "zones-by-label", false, "zone by zone, the zones being the values of --zone-key found on the nodes, by name")
	f.BoolVar(&p.pauseBetween, "pause-between-zones", false, "pause after each zone but the last, for 'rollout resume'")
	f.StringVar(&p.maxUnavailable, "max-unavailable", "", "the cluster-wide budget: N, or N% of the desired nodes rounded up (default 1)")
	f.StringVar(&p.maxSurge, "max-surge", "", "refused unless 0: no surge under OnDelete (see above)")
	f.BoolVar(&p.strict, "strict-budgets", false, "an old pod that is not available costs budget like any other (upstream deletes them all at once)")
	f.Int32Var(&p.minReady, "min-ready-seconds", 0, "how long a new pod must be Ready to count as available (default: the DaemonSet's)")
	f.StringSliceVar(&p.pauseBefore, "pause-before", nil, "pause points: zone:NAME or rest")
	f.DurationVar(&p.readyDeadline, "ready-deadline", 0, fmt.Sprintf("gate: a new pod not Ready this long after its creation stops the rollout (default %s)", progressive.DefaultReadyDeadline))
	f.Int32Var(&p.maxRestarts, "max-restarts", 0, fmt.Sprintf("gate: a new pod restarted more often stops the rollout (default %d)", progressive.DefaultMaxRestarts))
	f.StringVar(&p.onFailure, "on-failure", "", "what a failed gate does: Pause (default) or Abort")
}

// byPolicyFlags reports that cmd was given a policy flag.
func byPolicyFlags(cmd *cobra.Command) bool {
	return slices.ContainsFunc(policyFlagNames, cmd.Flags().Changed)
}

// policy builds the policy from the file (p.file, given as fileFlag) or
// the flags, for the command cmdName.
func (c *cli) policy(cmd *cobra.Command, p *policyFlags, cmdName, fileFlag string) (progressive.Policy, error) {
	p.maxRestartsChanged = cmd.Flags().Changed("max-restarts")
	if p.file != "" {
		if byPolicyFlags(cmd) {
			return progressive.Policy{}, usagef("%s: give the policy by %s or by flags, not both", cmdName, fileFlag)
		}
		data, err := c.readPolicyFile(p.file)
		if err != nil {
			return progressive.Policy{}, c.fail("%s: %s %s: %v", cmdName, fileFlag, p.file, err)
		}
		pol, err := progressive.DecodePolicy(data)
		if err != nil {
			return progressive.Policy{}, c.fail("%s: %s %s: %v", cmdName, fileFlag, p.file, err)
		}
		return pol, nil
	}
	var pol progressive.Policy
	if p.maxSurge != "" && p.maxSurge != "0" && p.maxSurge != "0%" {
		return pol, usagef("%s: --max-surge %s: no surge under updateStrategy OnDelete: the DaemonSet controller creates a pod only on a node without one, so an old and a new pod never run side by side", cmdName, p.maxSurge)
	}
	if p.canary != "" || p.canarySelector != "" {
		pol.Canary = &progressive.CanaryPolicy{}
		if p.canary != "" {
			v := intstr.Parse(p.canary)
			pol.Canary.Nodes = &v
		}
		if p.canarySelector != "" {
			sel, err := metav1.ParseToLabelSelector(p.canarySelector)
			if err != nil {
				return pol, usagef("%s: --canary-selector: %v", cmdName, err)
			}
			pol.Canary.Selector = sel
		}
	}
	if len(p.zones) > 0 || p.zonesByLabel || p.zoneKey != "" || p.pauseBetween {
		if len(p.zones) > 0 && p.zonesByLabel {
			return pol, usagef("%s: --zones and --zones-by-label: give one", cmdName)
		}
		pol.Zones = &progressive.ZonesPolicy{Key: p.zoneKey, Order: p.zones, PauseBetween: p.pauseBetween}
	}
	if p.maxUnavailable != "" {
		v := intstr.Parse(p.maxUnavailable)
		pol.MaxUnavailable = &v
	}
	pol.StrictBudgets, pol.MinReadySeconds, pol.PauseBefore = p.strict, p.minReady, p.pauseBefore
	if p.readyDeadline != 0 || p.maxRestartsChanged || p.onFailure != "" {
		pol.Gates = &progressive.Gates{ReadyDeadline: metav1.Duration{Duration: p.readyDeadline}, OnFailure: progressive.GateAction(p.onFailure)}
		if p.maxRestartsChanged {
			n := p.maxRestarts
			pol.Gates.MaxRestarts = &n
		}
	}
	if errs := pol.Validate(); len(errs) > 0 {
		return pol, usagef("%s: %v", cmdName, flagPaths(errs.Error()))
	}
	return pol, nil
}

// flagPaths names the flags of the policy's field paths in a message.
func flagPaths(msg string) string {
	return strings.NewReplacer(
		"policy.canary.nodes", "--canary", "policy.canary.selector", "--canary-selector",
		"policy.zones.order", "--zones", "policy.zones.key", "--zone-key",
		"policy.maxUnavailable", "--max-unavailable", "policy.minReadySeconds", "--min-ready-seconds",
		"policy.pauseBefore", "--pause-before", "policy.gates.readyDeadline", "--ready-deadline",
		"policy.gates.maxRestarts", "--max-restarts", "policy.gates.onFailure", "--on-failure",
	).Replace(msg)
}

func (c *cli) readPolicyFile(name string) ([]byte, error) {
	if name == "-" {
		if c.stdinRead {
			return nil, errors.New("standard input was already read")
		}
		c.stdinRead = true
		return io.ReadAll(c.stdin)
	}
	return os.ReadFile(name)
}

// rolloutStatusOutputs are `rollout status -o`'s formats.
var rolloutStatusOutputs = []string{"table", "json"}

func (c *cli) rolloutStatusCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status ds/NAME [-n NAMESPACE] [-o table|json]",
		Short: "Show where the rollout stands, node by node; exit 3 while paused by a gate, 4 when aborted",
		Long: `Show where the rollout stands: its phase, the revision rolled out, the pause and
why, the budget in use, the ETA, and every node: Updated, Updating (its new pod not
available yet), Deleting, Missing (the controller has not created its pod),
Outdated. It only reads (get and list), and shows what the next step would
decide: a gate that fails shows as a pause before any step wrote it.

The ETA schedules the nodes left, maxUnavailable at a time and zone after
zone, at a time per node measured by this rollout's steps (the mean from a
delete to the new pod seen available), or, before any was measured, the
timeline model's (the template's grace period, else 30s, + 10s to Ready +
minReadySeconds). The operator's promote and resumes are named, not counted.

-o json prints the same with every node, Idle ones included (the document's
schema: kube/schema RolloutReport).

Exit status: 0 progressing, waiting or done; 3 paused by a failed health gate;
4 aborted; 1 error.`,
		RunE: func(_ *cobra.Command, args []string) error {
			if !slices.Contains(rolloutStatusOutputs, output) {
				return usagef("rollout status: -o %q: want one of %s", output, strings.Join(rolloutStatusOutputs, ", "))
			}
			cn, ns, name, err := c.rolloutTarget("status", args)
			if err != nil {
				return err
			}
			res, err := progressive.Inspect(context.Background(), cn.client, ns, name, c.now())
			if err != nil {
				return c.rolloutErr("status", err)
			}
			if output == "json" {
				if err := c.writeJSON("rollout status", rolloutReport(ns, name, res)); err != nil {
					return err
				}
			} else {
				writeRolloutStatus(c.stdout, ns, name, res)
			}
			return rolloutExit(res, false)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: "+strings.Join(rolloutStatusOutputs, "|"))
	return cmd
}

// rolloutReport is res as `rollout status -o json` prints it.
func rolloutReport(ns, name string, res progressive.StepResult) schema.RolloutReport {
	st := res.Rollout.Status
	policy, err := json.Marshal(res.Rollout.Policy)
	if err != nil {
		policy = []byte("null") // a Policy is plain data: never
	}
	r := schema.RolloutReport{DaemonSet: schema.Ref{Namespace: ns, Name: name}, Policy: policy,
		Revision: st.Revision, Phase: string(st.Phase), Zone: st.Zone, Zones: append([]string{}, st.Zones...),
		Promoted: st.Promoted, Reason: st.Reason, Budget: res.Budget, InUse: res.InUse, Waiting: res.Waiting,
		InFlight: []schema.RolloutPod{}, Nodes: []schema.RolloutNode{}}
	if p := st.Paused; p != nil {
		r.Paused = &schema.RolloutPause{By: string(p.By), Reason: p.Reason}
	}
	for _, f := range st.InFlight {
		r.InFlight = append(r.InFlight, schema.RolloutPod{Pod: f.Pod, Node: f.Node})
	}
	if e := res.ETA; e != nil {
		r.ETA = &schema.RolloutETA{Remaining: e.Remaining.String(), Nodes: e.Nodes, Budget: e.Budget, PerNode: e.PerNode.String(),
			Source: string(e.Source), Measured: e.Measured, Model: e.Model, Waits: append([]string{}, e.Waits...)}
	}
	for _, n := range res.Nodes {
		r.Nodes = append(r.Nodes, schema.RolloutNode{Name: n.Name, Zone: n.Zone, State: string(n.State), Pod: n.Pod, Desired: n.Desired})
	}
	return r
}

func (c *cli) rolloutPauseCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "pause ds/NAME [-n NAMESPACE] [--reason TEXT]",
		Short: "Pause the rollout: no pod is deleted until resume",
		RunE: func(_ *cobra.Command, args []string) error {
			cn, ns, name, err := c.rolloutTarget("pause", args)
			if err != nil {
				return err
			}
			if _, err := c.driver("pause", cn).Pause(context.Background(), ns, name, reason); err != nil {
				return c.rolloutErr("pause", err)
			}
			fmt.Fprintf(c.stdout, "daemonset %s/%s: rollout paused\n", ns, name)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, recorded on the DaemonSet")
	return cmd
}

func (c *cli) rolloutResumeCmd() *cobra.Command {
	var w watchOpts
	cmd := &cobra.Command{
		Use:   "resume ds/NAME [-n NAMESPACE] [--watch]",
		Short: "Resume a paused rollout (the pods that failed a gate are no longer judged); with --watch, follow any rollout",
		RunE: func(_ *cobra.Command, args []string) error {
			cn, ns, name, err := c.rolloutTarget("resume", args)
			if err != nil {
				return err
			}
			_, err = c.driver("resume", cn).Resume(context.Background(), ns, name)
			switch {
			case errors.Is(err, progressive.ErrNotPaused) && w.watch:
				fmt.Fprintf(c.stdout, "daemonset %s/%s: the rollout is not paused; following it\n", ns, name)
			case err != nil:
				return c.rolloutErr("resume", err)
			default:
				fmt.Fprintf(c.stdout, "daemonset %s/%s: rollout resumed\n", ns, name)
			}
			return c.follow("resume", cn, ns, name, w)
		},
	}
	addWatch(cmd, &w)
	return cmd
}

func (c *cli) rolloutPromoteCmd() *cobra.Command {
	var w watchOpts
	cmd := &cobra.Command{
		Use:   "promote ds/NAME [-n NAMESPACE] [--watch]",
		Short: "Promote the canary: the rollout goes on past it",
		RunE: func(_ *cobra.Command, args []string) error {
			cn, ns, name, err := c.rolloutTarget("promote", args)
			if err != nil {
				return err
			}
			if _, err := c.driver("promote", cn).Promote(context.Background(), ns, name); err != nil {
				return c.rolloutErr("promote", err)
			}
			fmt.Fprintf(c.stdout, "daemonset %s/%s: canary promoted\n", ns, name)
			return c.follow("promote", cn, ns, name, w)
		},
	}
	addWatch(cmd, &w)
	return cmd
}

func (c *cli) rolloutAbortCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "abort ds/NAME [-n NAMESPACE] [--reason TEXT]",
		Short: "Abort the rollout: no more deletes; the template is left as it is (see undo)",
		RunE: func(_ *cobra.Command, args []string) error {
			cn, ns, name, err := c.rolloutTarget("abort", args)
			if err != nil {
				return err
			}
			if _, err := c.driver("abort", cn).Abort(context.Background(), ns, name, reason); err != nil {
				return c.rolloutErr("abort", err)
			}
			fmt.Fprintf(c.stdout, "daemonset %s/%s: rollout aborted; the template is unchanged ('%s rollout undo' rolls the previous revision out)\n", ns, name, c.name)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, recorded on the DaemonSet")
	return cmd
}

func (c *cli) rolloutUndoCmd() *cobra.Command {
	var w watchOpts
	cmd := &cobra.Command{
		Use:   "undo ds/NAME [-n NAMESPACE] [--watch]",
		Short: "Set the template back to the previous revision, as 'kubectl rollout undo', and roll it out under the same policy",
		Long: `Set the DaemonSet's template back to the revision before the current one, as
'kubectl rollout undo' does, and start a rollout of it under the same policy,
without a canary (that revision ran before). One write does both, with the
DaemonSet's resourceVersion as a precondition.`,
		RunE: func(_ *cobra.Command, args []string) error {
			cn, ns, name, err := c.rolloutTarget("undo", args)
			if err != nil {
				return err
			}
			to, err := c.driver("undo", cn).Undo(context.Background(), ns, name)
			if err != nil {
				return c.rolloutErr("undo", err)
			}
			fmt.Fprintf(c.stdout, "daemonset %s/%s: template set back to revision %d; rolling it out\n", ns, name, to)
			return c.follow("undo", cn, ns, name, w)
		},
	}
	addWatch(cmd, &w)
	return cmd
}

// rolloutErr prints an error of the progressive package; a DaemonSet on
// RollingUpdate gets the command that switches it on a line of its own.
func (c *cli) rolloutErr(cmd string, err error) error {
	var noe *progressive.NotOnDeleteError
	if errors.As(err, &noe) {
		fmt.Fprintf(c.stderr, "%s: rollout %s: daemonset %s/%s has updateStrategy %s, not OnDelete: its own controller would roll it out beside daemonplan. Switch it first:\n  %s\n",
			c.name, cmd, noe.Namespace, noe.Name, noe.Type, noe.Command())
		if cmd == "start" {
			fmt.Fprintf(c.stderr, "or let '%s rollout start --switch-strategy' switch it, and switch it back when the rollout is done\n", c.name)
		}
		return exitErr{exitError}
	}
	return c.fail("rollout %s: %v", cmd, err)
}

// follow steps the rollout until it ends or waits, with --watch; without,
// it returns at once.
func (c *cli) follow(cmd string, cn *conn, ns, name string, w watchOpts) error {
	if !w.watch {
		return nil
	}
	sleep := c.sleep
	if sleep == nil {
		sleep = time.Sleep
	}
	ctx := context.Background()
	dr := c.driver(cmd, cn)
	start := c.now()
	last := ""
	backoff := time.Duration(0)
	for {
		res, err := dr.Step(ctx, ns, name, c.now())
		switch {
		case errors.Is(err, progressive.ErrConflict):
			sleep(200 * time.Millisecond)
			continue
		case transient(err) && (w.timeout <= 0 || c.now().Sub(start) < w.timeout):
			// The server is restarting, overloaded or unreachable: every
			// write of a step is held to preconditions and the state is on
			// the DaemonSet, so the next step reads again and goes on.
			backoff = min(max(2*backoff, time.Second), 10*time.Second)
			fmt.Fprintf(c.stderr, "%s: rollout %s: %v (retrying in %s)\n", c.name, cmd, err, backoff)
			sleep(backoff)
			continue
		case err != nil:
			return c.rolloutErr(cmd, err)
		}
		backoff = 0
		line := rolloutLine(res)
		if line != last {
			fmt.Fprintf(c.stdout, "%s %s\n", c.now().UTC().Format(time.TimeOnly), line)
			last = line
		}
		refused := false
		for _, d := range res.Deletes {
			if d.Err != nil {
				fmt.Fprintf(c.stderr, "%s: rollout %s: delete pod %s on node %s: %v (the next step decides again)\n", c.name, cmd, d.Pod, d.Node, d.Err)
				refused = refused || apierrors.IsForbidden(d.Err) || apierrors.IsUnauthorized(d.Err)
			}
		}
		if refused {
			// Every step would ask again and be refused again: stop. The
			// pods are recorded in flight; a driver with the right (delete
			// on pods) deletes them.
			return c.fail("rollout %s: not allowed to delete pods: the rollout records them in flight; a driver with the right goes on from there", cmd)
		}
		if err := rolloutExit(res, true); err != nil || res.Rollout.Status.Phase == progressive.PhaseDone {
			return err
		}
		if w.timeout > 0 && c.now().Sub(start) > w.timeout {
			return c.fail("rollout %s: --timeout %s: the rollout is still in phase %s", cmd, w.timeout, res.Rollout.Status.Phase)
		}
		sleep(w.interval)
	}
}

// transient reports an error a later step may not meet: the server (or a
// proxy before it) answered 429 or 5xx, or a request timed out, or the connection
// was refused, reset or cut short (kube-apiserver restarting). Anything
// else, Forbidden included, ends --watch.
func transient(err error) bool {
	if err == nil {
		return false
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) && st.Status().Code >= 500 {
		return true // 500, 502 (a proxy before a restarting server), 503, 504
	}
	return apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) || apierrors.IsUnexpectedServerError(err) ||
		utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) ||
		errors.Is(err, context.DeadlineExceeded)
}

// rolloutExit is the exit status for where a rollout stands: an exitErr,
// or nil. With waiting, a rollout that waits for the operator is
// exitWaiting.
func rolloutExit(res progressive.StepResult, waiting bool) error {
	st := res.Rollout.Status
	switch {
	case st.Phase == progressive.PhaseAborted:
		return exitErr{exitAborted}
	case st.Paused != nil && st.Paused.By == progressive.ByGate:
		return exitErr{exitGate}
	case waiting && (st.Paused != nil || (st.Phase == progressive.PhaseCanary && strings.Contains(res.Waiting, "promote"))):
		return exitErr{exitWaiting}
	}
	return nil
}

// rolloutLine sums a step up in one line.
func rolloutLine(res progressive.StepResult) string {
	st := res.Rollout.Status
	updated := 0
	desired := 0
	for _, n := range res.Nodes {
		if n.State == progressive.Updated {
			updated++
		}
		if n.Desired {
			desired++
		}
	}
	s := fmt.Sprintf("phase %s", phaseName(st))
	s += fmt.Sprintf(", %d/%d nodes updated, %d/%d of the budget in use", updated, desired, res.InUse, res.Budget)
	if len(res.Deletes) > 0 {
		var names []string
		for _, d := range res.Deletes {
			names = append(names, d.Pod+"@"+d.Node)
		}
		s += ", deleted " + strings.Join(names, " ")
	}
	// Aborted: phaseName already says why.
	if res.Waiting != "" && st.Phase != progressive.PhaseDone && st.Phase != progressive.PhaseAborted {
		s += "; " + res.Waiting
	}
	return escapeRunes(s)
}

func phaseName(st progressive.RolloutState) string {
	switch st.Phase {
	case progressive.PhaseZone:
		return "Zone " + st.Zone
	case progressive.PhaseAborted:
		return "Aborted (" + st.Reason + ")"
	}
	return string(st.Phase)
}

// writeRolloutStatus prints the rollout and every node.
func writeRolloutStatus(w io.Writer, ns, name string, res progressive.StepResult) {
	st := res.Rollout.Status
	fmt.Fprintf(w, "daemonset %s/%s\n", escapeRunes(ns), escapeRunes(name))
	fmt.Fprintf(w, "revision:  %s\n", escapeRunes(st.Revision))
	fmt.Fprintf(w, "phase:     %s\n", escapeRunes(phaseName(st)))
	if len(st.Zones) > 0 {
		fmt.Fprintf(w, "zones:     %s\n", escapeRunes(strings.Join(st.Zones, ", ")))
	}
	if p := st.Paused; p != nil {
		fmt.Fprintf(w, "paused:    by %s: %s\n", p.By, escapeRunes(p.Reason))
	}
	fmt.Fprintf(w, "budget:    %d of %d nodes unavailable\n", res.InUse, res.Budget)
	if res.ETA != nil {
		fmt.Fprintf(w, "eta:       %s\n", res.ETA)
	}
	// Aborted: phaseName already says why.
	if res.Waiting != "" && st.Phase != progressive.PhaseDone && st.Phase != progressive.PhaseAborted {
		fmt.Fprintf(w, "waiting:   %s\n", escapeRunes(res.Waiting))
	}
	for _, f := range st.InFlight {
		fmt.Fprintf(w, "in flight: pod %s on node %s\n", escapeRunes(f.Pod), escapeRunes(f.Node))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tZONE\tSTATE\tPOD")
	for _, n := range res.Nodes {
		if n.State == progressive.Idle {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", escapeRunes(n.Name), escapeRunes(orDash(n.Zone)), n.State, escapeRunes(orDash(n.Pod)))
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (c *cli) rolloutRunCmd() *cobra.Command {
	var all bool
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "run [-n NAMESPACE | -A] [--interval D]",
		Short: "Drive every rollout of a namespace or the cluster, until SIGINT or SIGTERM",
		Long: fmt.Sprintf(`Drive, until SIGINT or SIGTERM, every DaemonSet of the namespace (-n, or the
context's), or of every namespace (-A), that carries the annotation
daemonplan.io/rollout: once per --interval, it lists the DaemonSets and steps
each annotated one once, with the same engine as '%[1]s rollout resume
--watch'. It never stops by itself: a rollout that waits for a promote, is
paused or aborted is stepped again at every interval (a done or aborted one
only once its template changes), so that a promote, a resume or a new
template from any machine is taken up at the next interval. The state is on
the DaemonSets: stop it at any moment and run it again, here or elsewhere; two
at once never both delete (the annotation's resourceVersion is the lock).

Start rollouts with '%[1]s rollout start' (and promote, pause, abort, undo)
as usual; 'run' takes the place of --watch. It prints a line when a
DaemonSet's state changes, and errors (a DaemonSet on RollingUpdate, a bad
annotation, a failed list) on standard error, and goes on.

Rights: those of the other rollout commands, plus list on daemonsets: in the
namespace with -n (a RoleBinding of daemonplan-rollout there, and a
ClusterRoleBinding for the node list), cluster-wide with -A (a
ClusterRoleBinding).`, c.name),
		Args: noArgs("rollout run"),
		RunE: func(*cobra.Command, []string) error {
			if interval <= 0 {
				return usagef("rollout run: --interval %s: must be greater than 0", interval)
			}
			cn, err := c.connect("rollout run")
			if err != nil {
				return err
			}
			return c.runAll(cn, cn.liveNamespace(all), interval)
		},
	}
	addLive(cmd, &all, "drive the annotated DaemonSets of every namespace (without it, of -n or the context's)")
	cmd.Flags().DurationVar(&interval, "interval", 5*time.Second, "the time between two passes over the DaemonSets (one step each)")
	return cmd
}

// runAll is 'rollout run': a StepAll per interval until the context of
// c.runContext (SIGINT, SIGTERM) is done.
func (c *cli) runAll(cn *conn, namespace string, interval time.Duration) error {
	newCtx := c.runContext
	if newCtx == nil {
		newCtx = func() (context.Context, context.CancelFunc) {
			return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		}
	}
	ctx, stop := newCtx()
	defer stop()
	where := "namespace " + namespace
	if namespace == "" {
		where = "every namespace"
	}
	fmt.Fprintf(c.stdout, "stepping the DaemonSets with the annotation %s in %s every %s; SIGINT or SIGTERM stops\n", progressive.Annotation, escapeRunes(where), interval)
	dr := c.driver("run", cn)
	last := map[string]string{}
	lastErr := map[string]string{}
	// lastDelErr is each delete refused in the last pass, its message by
	// DaemonSet and pod: a recorded delete is issued again at every pass
	// until it goes through, and said again only when its error changes.
	// Rebuilt at each pass, so that it holds no pod that has gone.
	lastDelErr := map[string]string{}
	listErr := ""
	for ctx.Err() == nil {
		got, err := dr.StepAll(ctx, namespace, c.now())
		delErr := map[string]string{}
		switch {
		case err != nil && ctx.Err() == nil:
			if msg := err.Error(); msg != listErr {
				fmt.Fprintf(c.stderr, "%s: rollout run: list daemonsets: %v (trying again every %s)\n", c.name, err, interval)
				listErr = msg
			}
		case err == nil:
			listErr = ""
		}
		for _, s := range got {
			key := s.Namespace + "/" + s.Name
			switch {
			case s.Conflicted() || s.Skipped:
				continue
			case s.Err != nil:
				if msg := s.Err.Error(); msg != lastErr[key] {
					fmt.Fprintf(c.stderr, "%s: rollout run: daemonset %s: %s\n", c.name, escapeRunes(key), escapeRunes(oneLine(msg)))
					lastErr[key] = msg
				}
				continue
			}
			delete(lastErr, key)
			if line := rolloutLine(s.Result); line != last[key] {
				fmt.Fprintf(c.stdout, "%s %s %s\n", c.now().UTC().Format(time.TimeOnly), escapeRunes(key), line)
				last[key] = line
			}
			for _, d := range s.Result.Deletes {
				if d.Err == nil {
					continue
				}
				pod, msg := key+"/"+d.Pod, d.Err.Error()
				if msg != lastDelErr[pod] {
					fmt.Fprintf(c.stderr, "%s: rollout run: daemonset %s: delete pod %s on node %s: %v (the next step decides again; said once until it changes)\n", c.name, escapeRunes(key), escapeRunes(d.Pod), escapeRunes(d.Node), escapeRunes(oneLine(msg)))
				}
				delErr[pod] = msg
			}
		}
		lastDelErr = delErr
		c.wait(ctx, interval)
	}
	fmt.Fprintf(c.stdout, "%s stopped; the rollouts' state is on their DaemonSets\n", c.now().UTC().Format(time.TimeOnly))
	return nil
}

// wait sleeps d, or less if ctx is done first; tests replace the sleep
// (c.sleep) and cancel ctx from it.
func (c *cli) wait(ctx context.Context, d time.Duration) {
	if c.sleep != nil {
		c.sleep(d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
