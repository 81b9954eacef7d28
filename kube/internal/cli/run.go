// Package cli is the daemonplan command line, shared by the daemonplan
// command and its kubectl plugin build (kubectl-daemonplan). Flags follow
// kubectl's conventions, through the flag libraries kubectl uses
// (spf13/cobra and spf13/pflag).
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

// Exit codes.
const (
	exitOK    = 0 // the plan or explanation was printed
	exitError = 1 // bad input, a DaemonSet refused by --strict, an unknown node
	exitUsage = 2 // unknown subcommand or flag, bad flag value, missing argument
)

const long = `%[1]s shows what the Kubernetes DaemonSet controller would do in one
sync of a cluster snapshot, without running it. Nothing is written to any
cluster, but by 'rollout', which drives a progressive rollout of a DaemonSet
on OnDelete (see '%[1]s rollout --help').

Without -f it reads the cluster of the kubeconfig, with kubectl's flags
(--kubeconfig, --context, -n, ...: '%[1]s options' lists them):
get and list only, the Kubernetes version from the server. The DaemonSet is NAME,
ds/NAME or daemonsets.apps/NAME, as for kubectl. A request the server does not
answer within --request-timeout (1m0s unless given; 0 waits forever, as kubectl
does by default) fails the command.

  %[1]s plan ds/node-agent -n kube-system
  %[1]s explain ds/node-agent node-017 -n kube-system
  %[1]s diff ds/node-agent -n kube-system --image 'agent=registry/agent:v2'
  %[1]s overhead -A

With -f it reads what kubectl get prints, and contacts no cluster:

  kubectl get ds/node-agent,nodes,pods,controllerrevisions -n kube-system -o yaml > cluster.yaml
  %[1]s plan -f cluster.yaml
  %[1]s explain -f cluster.yaml node-017
  %[1]s overhead -f all.yaml --node-file new-node.yaml
  %[1]s simulate -f cluster.yaml --ds-file node-agent-v2.yaml --html rollout.html
  %[1]s diff -f cluster.yaml --ds-file node-agent.yaml --label 'node-017:pool-'
  kubectl get ds,nodes,pods,controllerrevisions -o yaml | %[1]s plan -f - --ds node-agent

Exit status:
  0  the plan, explanation, diff or simulation was printed. A plan whose sync
     would fail upstream (non-empty "errors", shown under ERRORS in the table)
     still exits 0: that failure is the controller's result, which the plan
     reports, not a failure to compute it.
  1  unreadable or malformed input, no DaemonSet or several, a spec refused by
     --strict, or a node that explain or a diff edit cannot find.
  2  usage error: unknown command or flag, bad flag value, missing argument.
`

// Run is the whole command: it parses args (without the program name),
// reads the input from files or stdin and writes to stdout and stderr. name
// is how the user called it ("daemonplan" or "kubectl daemonplan"). It
// returns the exit status.
func Run(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{name: name, stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now}
	return c.run(args)
}

// cli holds the command's I/O and clock.
type cli struct {
	name           string
	stdin          io.Reader
	stdout, stderr io.Writer
	// now is the default of --now.
	now func() time.Time
	// stdinRead is set once a flag's "-" has read standard input, which
	// no later "-" can read again.
	stdinRead bool
	// kube are kubectl's connection flags; dial connects with them (nil:
	// dialKubeconfig), once, into conn (live.go).
	kube *genericclioptions.ConfigFlags
	dial dialer
	conn *conn
	// preread holds the files diff and simulate read to check that they
	// are a cluster (filesHoldCluster), for load to use.
	preread *preread
	// quiet is -q: no notes.
	quiet bool
	// strict is --strict, which makes the loader refuse unknown and
	// duplicate fields, and input without nodes.
	strict bool
	// namespace is the namespace of objects read without one.
	namespace string
	// sleep waits between the steps of rollout --watch and the passes of
	// rollout run (nil: time.Sleep).
	sleep func(time.Duration)
	// runContext is the context rollout run runs in (nil: until SIGINT
	// or SIGTERM).
	runContext func() (context.Context, context.CancelFunc)
	// newPodsLive makes load read, from a cluster, what the new pods'
	// answers need (plan -o wide|json|yaml, diff).
	newPodsLive bool
}

// usageErr is an error that exits with exitUsage.
type usageErr struct{ msg string }

func (e usageErr) Error() string { return e.msg }

// exitErr is an error already printed, carrying its exit status.
type exitErr struct{ code int }

func (e exitErr) Error() string { return fmt.Sprintf("exit %d", e.code) }

func usagef(format string, args ...any) error { return usageErr{fmt.Sprintf(format, args...)} }

// common are the flags of every command.
type common struct {
	files  []string
	now    string
	strict bool
	ds     string
	// version is --kubernetes-version; gates is --feature-gates.
	version string
	gates   map[string]bool
	// ignored is --ignored-during-execution.
	ignored bool
	// resource is the DaemonSet argument (ds/NAME); allNamespaces is -A.
	resource      string
	allNamespaces bool
}

// Version is the module version the binary was built from ("(devel)" in
// a checkout).
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func (c *cli) root() *cobra.Command {
	root := &cobra.Command{
		// cobra names a command by the first word of Use, and the
		// plugin's help by that name: "kubectl daemonplan" would be
		// "kubectl", and its commands "kubectl explain". The display
		// name keeps kubectl's plugin convention in every help page.
		Use:           c.name[strings.LastIndexByte(c.name, ' ')+1:],
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: c.name},
		Short:         "Show what the DaemonSet controller would do, without an API server",
		Long:          fmt.Sprintf(long, c.name),
		Version:       Version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("a command is required: plan, explain, overhead, simulate, diff or rollout")
		},
	}
	root.SetVersionTemplate(c.name + " version {{.Version}}\n")
	root.SetIn(c.stdin)
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr{err.Error()} })
	root.CompletionOptions.DisableDefaultCmd = true
	c.kube = newKubeFlags()
	c.kube.AddFlags(root.PersistentFlags())
	root.PersistentFlags().BoolVarP(&c.quiet, "quiet", "q", false, "print no notes (what daemonplan filled in or assumed); warnings and errors still")
	// Every command's help lists -q among its own flags (usage).
	root.PersistentFlags().SetAnnotation("quiet", ownFlag, []string{"true"})
	root.AddCommand(c.planCmd(), c.explainCmd(), c.overheadCmd(), c.simulateCmd(), c.diffCmd(), c.rolloutCmd(), optionsCmd(root))
	root.SetUsageFunc(usage)
	return root
}

// usage prints a command's usage as kubectl prints its own: the command's
// own flags, and kubectl's connection flags, the same for every command,
// left to "options" (they were twenty of every page's thirty flags).
func usage(cmd *cobra.Command) error {
	root := cmd.Root()
	global := root.PersistentFlags()
	own := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	add := func(f *pflag.Flag) {
		if (global.Lookup(f.Name) == nil || f.Annotations[ownFlag] != nil) && !f.Hidden && own.Lookup(f.Name) == nil {
			own.AddFlag(f)
		}
	}
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	var b strings.Builder
	b.WriteString("Usage:\n")
	if cmd.Runnable() {
		fmt.Fprintf(&b, "  %s\n", cmd.UseLine())
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "  %s [command]\n", cmd.CommandPath())
		b.WriteString("\nAvailable Commands:\n")
		for _, sub := range cmd.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "  %-*s %s\n", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if own.HasAvailableFlags() {
		fmt.Fprintf(&b, "\nFlags:\n%s", own.FlagUsages())
	}
	fmt.Fprintf(&b, "\nUse \"%s options\" for a list of global command-line options (applies to all commands).\n", root.DisplayName())
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "Use \"%s [command] --help\" for more information about a command.\n", cmd.CommandPath())
	}
	_, err := io.WriteString(cmd.OutOrStderr(), b.String())
	return err
}

// ownFlag marks a flag of the root that every command's help lists as its
// own, unlike kubectl's connection flags.
const ownFlag = "daemonplan-own-flag"

// optionsCmd prints the flags every command takes, as "kubectl options"
// does.
func optionsCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "options",
		Short: "Print the list of flags inherited by all commands (kubectl's connection flags)",
		Args:  noArgs("options"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "The following options can be passed to any command:\n\n%s", root.PersistentFlags().FlagUsages())
			return err
		},
	}
}

func (c *cli) run(args []string) int {
	root := c.root()
	root.SetArgs(args)
	ran, err := root.ExecuteC()
	var ue usageErr
	var ee exitErr
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue), strings.HasPrefix(err.Error(), "unknown command"):
		// The help of the command that was run, under the name typed
		// (the root's display name).
		help := c.name
		if ran != nil {
			help = ran.CommandPath()
		}
		fmt.Fprintf(c.stderr, "%s: %s (run '%s --help' for usage)\n", c.name, oneLine(err.Error()), help)
		return exitUsage
	default:
		fmt.Fprintf(c.stderr, "%s: %s\n", c.name, oneLine(err.Error()))
		return exitError
	}
}

// noArgs refuses positional arguments of a command that takes none, as a
// usage error.
func noArgs(cmd string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("%s: unexpected argument %q", cmd, args[0])
		}
		return nil
	}
}

// addCommon registers the flags every command has.
func addCommon(cmd *cobra.Command, o *common) {
	f := cmd.Flags()
	f.StringArrayVarP(&o.files, "filename", "f", nil,
		"what 'kubectl get ... -o yaml' or '-o json' prints: a List, single objects or a\n"+
			"multi-document stream; '-' reads standard input; a directory, its .json,\n"+
			".yaml and .yml files. Repeat to merge several sources, as kubectl does.\n"+
			"Other kinds are ignored. Without -f, the cluster of the kubeconfig is read\n"+
			"(docs/live-cluster.md).")
	f.StringVar(&o.now, "now", "", "the controller's clock, RFC 3339 (e.g. 2025-06-01T12:00:00Z): availability\n(minReadySeconds) is judged at this instant. Default: the current time, in UTC.")
	f.BoolVar(&o.strict, "strict", false, "refuse input the API server or kubectl --validate=strict would reject: a DaemonSet,\nnode or pod with field errors, unknown or duplicate fields, no nodes at all;\nprint the errors and exit 1. Without it such findings are printed to stderr as warnings.")
	f.StringVar(&o.ds, "ds", "", "[NAMESPACE/]NAME of the DaemonSet, when the input holds several")
	f.StringVar(&o.version, "kubernetes-version", "",
		"the Kubernetes minor whose controller to reproduce, one of "+versionList()+";\nit decides the revision hash. Default: the server's (its /version) when reading\na cluster, "+upstream.Latest.String()+" with -f")
	addLive(cmd, &o.allNamespaces, "read the cluster: look for the DaemonSet in every namespace")
	f.BoolVar(&o.ignored, "ignored-during-execution", false,
		"daemonplan's opt-in, not upstream's behaviour: keep the pods of a node whose labels\n"+
			"stop matching the nodeSelector or required node affinity, as \"IgnoredDuringExecution\"\n"+
			"says (upstream deletes them); new nodes still follow the selector")
	f.Var(gateFlag{&o.gates}, "feature-gates",
		"KEY=true|false pairs, as for kube-controller-manager; known: "+gateTaintComparison+"\n(alpha from 1.35, off by default: honour the Lt and Gt toleration operators)")
}

// gateTaintComparison is the feature gate of the Lt and Gt toleration
// operators.
const gateTaintComparison = "TaintTolerationComparisonOperators"

func versionList() string {
	var vs []string
	for _, v := range upstream.Versions() {
		vs = append(vs, v.String())
	}
	return strings.Join(vs, ", ")
}

// gateFlag reads --feature-gates A=true,B=false into a map; repeated flags
// add to it.
type gateFlag struct{ m *map[string]bool }

func (g gateFlag) String() string {
	if g.m == nil || len(*g.m) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(*g.m)) {
		parts = append(parts, k+"="+strconv.FormatBool((*g.m)[k]))
	}
	return strings.Join(parts, ",")
}

func (g gateFlag) Set(s string) error {
	if *g.m == nil {
		*g.m = map[string]bool{}
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return fmt.Errorf("%q: want KEY=true|false", kv)
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q: want KEY=true|false", kv)
		}
		if k != gateTaintComparison {
			return fmt.Errorf("unknown feature gate %q (known: %s)", k, gateTaintComparison)
		}
		(*g.m)[k] = b
	}
	return nil
}

func (gateFlag) Type() string { return "mapStringBool" }

// fail prints a one-line message and returns an exitErr of exitError.
func (c *cli) fail(format string, args ...any) error {
	fmt.Fprintf(c.stderr, "%s: %s\n", c.name, oneLine(fmt.Sprintf(format, args...)))
	return exitErr{exitError}
}

// oneLine folds a multi-line message (as some decoders produce) into one,
// and escapes in place every rune left that is not printable (escapeRunes):
// a name in a message reaches the terminal neither as a line break nor as
// a control sequence.
func oneLine(s string) string {
	return escapeRunes(strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " "))
}

// input is a parsed, loaded snapshot.
type input struct {
	cluster *load.Snapshot
	now     time.Time
	// kruise is set when the DaemonSet is an OpenKruise Advanced DaemonSet.
	kruise *convert.Kruise
	// version is the Kubernetes minor planned for; comparison honours the
	// Lt and Gt toleration operators.
	version    upstream.Version
	comparison bool
	// ignored keeps pods on nodes that stop matching (--ignored-during-execution).
	ignored bool
	// objs is what the new pods' answers read (newPods): the admission
	// objects, PodDisruptionBudgets and every unfinished pod. With files,
	// everything read; live, read apart when newPodsLive asks for it (nil
	// otherwise, or when the cluster refused it: no answer is given).
	objs *load.Objects
}

// options are the planner's options for in: the feature gate, the
// IgnoredDuringExecution opt-in, and an Advanced DaemonSet's extensions.
func (in *input) options() (placement.Options, rollout.Progressive) {
	var p placement.Options
	p.Taints.ComparisonOperators = in.comparison
	p.IgnoredDuringExecution = in.ignored
	var prog rollout.Progressive
	if k := in.kruise; k != nil {
		prog, p.BurstReplicas = k.Progressive, k.BurstReplicas
	}
	return p, prog
}

// load checks the common flags and reads the snapshot.
func (c *cli) load(cmd string, o *common) (*input, error) {
	ns, name, err := c.daemonSetName(cmd, o)
	if err != nil {
		return nil, err
	}
	version, err := c.kubernetesVersion(cmd, o)
	if err != nil {
		return nil, err
	}
	comparison := o.gates[gateTaintComparison]
	if comparison && version < upstream.V1_35 {
		return nil, usagef("%s: --feature-gates %s=true: the gate exists from Kubernetes 1.35, not in %s", cmd, gateTaintComparison, version)
	}
	now := c.now().UTC()
	if o.now != "" {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(o.now))
		if err != nil {
			return nil, usagef("%s: --now %q: want RFC 3339, e.g. 2025-06-01T12:00:00Z", cmd, o.now)
		}
		now = t
	}

	c.readOptions(o)
	objs, kruise, src, err := c.source(cmd, o, ns, name)
	if err != nil {
		return nil, err
	}
	for _, w := range objs.Warnings {
		if w.DefaultNamespace {
			c.warnLoad(cmd, []load.DecodeWarning{w}, true)
		}
	}
	cl, err := objs.Snapshot(ns, name)
	switch {
	case errors.Is(err, load.ErrManyDaemonSets):
		return nil, c.fail("%s: %s: %v; pick one with --ds NAMESPACE/NAME", cmd, src, err)
	case errors.Is(err, load.ErrNoDaemonSet) && len(objs.DaemonSets) > 0:
		return nil, c.fail("%s: %s: %v; the input holds %s", cmd, src, err, daemonSetNames(objs))
	case errors.Is(err, load.ErrNoDaemonSet):
		return nil, c.fail("%s: %s: %v; include it, e.g. kubectl get ds/NAME,nodes,pods,controllerrevisions -o yaml", cmd, src, err)
	case err != nil:
		return nil, c.fail("%s: %s: %v", cmd, src, err)
	}
	if len(cl.Nodes) == 0 {
		// Without nodes the plan places no pod and calls the rollout
		// done: that is almost always a forgotten "nodes" in kubectl get.
		const msg = "no nodes in the input: the plan places no pod; include them, e.g. kubectl get ds/NAME,nodes,pods,controllerrevisions -o yaml"
		if o.strict {
			return nil, c.fail("%s: %s: %s (--strict)", cmd, src, msg)
		}
		fmt.Fprintf(c.stderr, "warning: %s: %s: %s\n", cmd, src, msg)
	}
	k := kruise[cl.DaemonSet]
	note, err := asStored(cl, version, k != nil)
	if err != nil {
		return nil, c.fail("%s: %s: %v", cmd, cl.At.DaemonSet, err)
	}
	if note != "" && !c.quiet {
		fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("%s: %s: note: %s (-q hides notes)", c.name, cmd, note)))
	}
	if note := hashlessNote(cl); note != "" && !c.quiet {
		fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("%s: %s: note: %s (-q hides notes)", c.name, cmd, note)))
	}
	in := &input{cluster: cl, now: now, kruise: k, version: version, comparison: comparison, ignored: o.ignored, objs: objs}
	if len(o.files) == 0 {
		in.objs = nil
		if c.newPodsLive {
			in.objs = c.newPodsSource(cmd, cl.DaemonSet.Namespace)
		}
	}
	return in, nil
}

// maxNamedPods bounds the pods a note names.
const maxNamedPods = 3

// hashlessNote says which pods of cl's DaemonSet carry no
// controller-revision-hash label: the rollout counts them as outdated
// unless their pod-template-generation label is the template generation
// (upstream's IsPodUpdated), which the status and the table show without
// a word. "" when there are none.
func hashlessNote(cl *load.Snapshot) string {
	ds := cl.DaemonSet
	var names []string
	for _, p := range cl.Pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil || ref.UID != ds.UID || p.Namespace != ds.Namespace {
			continue
		}
		if _, ok := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; !ok {
			names = append(names, p.Namespace+"/"+p.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	shown := strings.Join(names[:min(len(names), maxNamedPods)], ", ")
	if len(names) > maxNamedPods {
		shown += fmt.Sprintf(" and %d more", len(names)-maxNamedPods)
	}
	if len(names) == 1 {
		return fmt.Sprintf("1 pod of DaemonSet %s/%s has no %s label (%s): counted as outdated unless its pod-template-generation label is the template generation, as the controller counts it",
			ds.Namespace, ds.Name, appsv1.DefaultDaemonSetUniqueLabelKey, shown)
	}
	return fmt.Sprintf("%d pods of DaemonSet %s/%s have no %s label (%s): counted as outdated unless their pod-template-generation label is the template generation, as the controller counts them",
		len(names), ds.Namespace, ds.Name, appsv1.DefaultDaemonSetUniqueLabelKey, shown)
}

// writeJSON prints doc, the -o json document of command cmd, indented.
func (c *cli) writeJSON(cmd string, doc any) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return c.fail("%s: %v", cmd, err)
	}
	_, err = c.stdout.Write(append(b, '\n'))
	return err
}

// readOptions sets how files are read from the command's flags: --strict,
// and the namespace of objects without one, -n's as kubectl gives it
// (without -n, the loader's default namespace; the kubeconfig is not read
// for files).
func (c *cli) readOptions(o *common) {
	c.strict = o.strict
	if c.kube != nil && c.kube.Namespace != nil {
		c.namespace = *c.kube.Namespace
	}
}

// expandDirs replaces each directory among files by the files in it whose
// names end in .json, .yaml or .yml, in name order, as kubectl's -f does
// (not recursively: kubectl needs -R for that). A directory without such a
// file is an error.
func expandDirs(files []string) ([]string, error) {
	var out []string
	for _, file := range files {
		if file == "-" {
			out = append(out, file)
			continue
		}
		entries, err := os.ReadDir(file)
		if err != nil {
			// Not a directory (or not readable): read it as a file, which
			// reports what is wrong.
			out = append(out, file)
			continue
		}
		n := len(out)
		for _, e := range entries {
			switch filepath.Ext(e.Name()) {
			case ".json", ".yaml", ".yml":
				if !e.IsDir() {
					out = append(out, filepath.Join(file, e.Name()))
				}
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: a directory with no .json, .yaml or .yml file", file)
		}
	}
	return out, nil
}

// read reads and merges every input file (- is standard input, read once
// by all the flags of a command together) with load.Load, so that an object
// found in several files is one object and conflicting copies are refused
// with their positions, and adds the OpenKruise Advanced DaemonSets the
// loader found as apps/v1 DaemonSets. Objects without a namespace are read
// in c.namespace ("default" unless set); unknown and duplicate fields are
// warnings, errors with --strict. It returns the objects, what each
// Advanced DaemonSet adds to its plan, and the sources' names for messages.
func (c *cli) read(cmd string, files []string) (*load.Objects, map[*appsv1.DaemonSet]*convert.Kruise, string, error) {
	return c.readIn(cmd, files, c.namespace)
}

// readIn is read with objects without a namespace read in namespace.
func (c *cli) readIn(cmd string, files []string, namespace string) (*load.Objects, map[*appsv1.DaemonSet]*convert.Kruise, string, error) {
	var srcs []load.Source
	var names []string
	files, err := expandDirs(files)
	if err != nil {
		return nil, nil, "", c.fail("%s: %v", cmd, err)
	}
	for _, file := range files {
		r, src := c.stdin, "standard input"
		if file == "-" {
			if c.stdinRead {
				return nil, nil, "", usagef("%s: standard input (-) given twice: it can be read once", cmd)
			}
			c.stdinRead = true
		} else {
			f, err := os.Open(file)
			if err != nil {
				return nil, nil, "", c.fail("%s: %v", cmd, err)
			}
			defer f.Close()
			r, src = f, file
		}
		srcs = append(srcs, load.Source{Name: src, R: r})
		names = append(names, src)
	}
	objs, err := load.Load(load.Options{DefaultNamespace: namespace, Strict: c.strict}, srcs...)
	if err != nil {
		if c.strict && strings.Contains(err.Error(), "strict decoding error") {
			return nil, nil, "", c.fail("%s: %v (--strict)", cmd, err)
		}
		return nil, nil, "", c.fail("%s: %v", cmd, err)
	}
	c.warnLoad(cmd, objs.Warnings, false)
	kruise, err := addKruise(objs)
	if err != nil {
		return nil, nil, "", c.fail("%s: %v", cmd, err)
	}
	return objs, kruise, strings.Join(names, ", "), nil
}

// maxLoadWarnings bounds the loader's warnings printed: a dump of many
// objects with the same unknown field would otherwise bury the plan.
const maxLoadWarnings = 20

// warnLoad prints the loader's warnings on stderr, as kubectl prints its
// own: "warning: a.yaml: YAML document 1 (apps/v1 DaemonSet ns/x): unknown
// field "spec.template.spec.nodeselector"". The warning about objects read
// in the default namespace is printed only with namespace: it matters for
// the cluster read, where pods must land in their DaemonSet's namespace,
// not for a --ds-file read in the cluster's DaemonSet's namespace.
func (c *cli) warnLoad(cmd string, ws []load.DecodeWarning, namespace bool) {
	for i, w := range ws {
		if w.DefaultNamespace {
			if namespace {
				fmt.Fprintln(c.stderr, "warning: "+oneLine(w.String()))
			}
			continue
		}
		if i == maxLoadWarnings {
			fmt.Fprintf(c.stderr, "warning: %s: %d more warning(s) about the input not shown\n", cmd, len(ws)-i)
			break
		}
		fmt.Fprintln(c.stderr, "warning: "+oneLine(w.String()))
	}
}

func daemonSetNames(objs *load.Objects) string {
	names := make([]string, len(objs.DaemonSets))
	for i, ds := range objs.DaemonSets {
		names[i] = ds.Namespace + "/" + ds.Name
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// sync runs the planner and reports validation findings on stderr: as
// warnings, or with strict as the reason for refusing.
func (c *cli) sync(cmd string, in *input, strict bool) (daemonplan.Plan, error) {
	opts := kubesync.Options{KubernetesVersion: in.version}
	opts.Strict = strict
	opts.Placement, opts.Progressive = in.options()
	if k := in.kruise; k != nil {
		for _, w := range k.Warnings {
			fmt.Fprintln(c.stderr, finding("warning", w))
		}
	}
	p, err := kubesync.Sync(in.cluster, in.now, kubesync.State{}, opts)
	// The nodes' and pods' enums (a taint effect NoSchedul, an operator
	// Exist) are findings like the DaemonSet's: files are written by hand.
	objErrs := convert.ValidateObjects(in.cluster.Nodes, in.cluster.Pods, api.ValidateOptions{ComparisonOperators: in.comparison})
	var dsErrs field.ErrorList
	switch {
	case err == nil && strict && len(objErrs) > 0:
		p, err = daemonplan.Plan{}, objErrs
	case err == nil:
		p.Warnings = append(p.Warnings, objErrs...)
	case strict && errors.As(err, &dsErrs) && !errors.Is(err, daemonplan.ErrInvalidInput):
		err = append(dsErrs, objErrs...)
	}
	if err != nil {
		var fes field.ErrorList
		if errors.Is(err, daemonplan.ErrInvalidInput) && errors.As(err, &fes) {
			fmt.Fprintf(c.stderr, "%s: %s: the input cannot be planned: %d problem(s)\n", c.name, cmd, len(fes))
			for _, fe := range fes {
				fmt.Fprintln(c.stderr, "error: "+oneLine(in.where(fe.Field)+fe.Error()))
			}
			return p, exitErr{exitError}
		}
		if errors.As(err, &fes) {
			ds := in.cluster.DaemonSet
			fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("%s: %s: DaemonSet %s/%s (%s) is invalid (--strict): %d field error(s)",
				c.name, cmd, ds.Namespace, ds.Name, in.cluster.At.DaemonSet, len(fes))))
			for _, fe := range fes {
				fmt.Fprintln(c.stderr, "error: "+oneLine(in.where(fe.Field)+fe.Error()))
			}
			return p, exitErr{exitError}
		}
		return p, c.fail("%s: %v", cmd, err)
	}
	if len(p.Warnings) > 0 {
		ds := in.cluster.DaemonSet
		fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("%s: %s: DaemonSet %s/%s (%s): %d warning(s), planned as the controller would",
			c.name, cmd, ds.Namespace, ds.Name, in.cluster.At.DaemonSet, len(p.Warnings))))
	}
	for _, w := range p.Warnings {
		fmt.Fprintln(c.stderr, "warning: "+oneLine(in.where(w.Field)+w.Error()))
	}
	return p, nil
}

// syncInput converts a loaded snapshot into the input and options of a
// sync (kubesync.Input).
func syncInput(in *input) (daemonplan.Input, daemonplan.Options, error) {
	opts := kubesync.Options{KubernetesVersion: in.version}
	opts.Placement, opts.Progressive = in.options()
	return kubesync.Input(in.cluster, in.now, kubesync.State{}, opts)
}

// itemPath matches the field path of a finding about one object of the
// input: "pods[3].name".
var itemPath = regexp.MustCompile(`^(nodes|pods|revisions)\[([0-9]+)\]`)

// where renders the position of the object a finding's field path names,
// followed by ": ", or "" when the path names no object of the input.
func (in *input) where(path string) string {
	m := itemPath.FindStringSubmatch(path)
	if m == nil {
		return ""
	}
	i, _ := strconv.Atoi(m[2])
	var at []load.Position
	switch m[1] {
	case "nodes":
		at = in.cluster.At.Nodes
	case "pods":
		at = in.cluster.At.Pods
	default:
		at = in.cluster.At.Revisions
	}
	if i >= len(at) {
		return ""
	}
	return at[i].String() + ": "
}

// finding renders a validation finding as "LEVEL: " and the message the
// API server would give: `FIELD: Invalid value: "abc%": DETAIL`.
func finding(level string, fe *field.Error) string {
	return level + ": " + oneLine(fe.Error())
}
