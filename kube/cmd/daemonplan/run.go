package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/planner"
)

// Exit codes.
const (
	exitOK    = 0 // the plan or explanation was printed
	exitError = 1 // bad input, a DaemonSet refused by --strict, an unknown node
	exitUsage = 2 // unknown subcommand or flag, bad flag value, missing argument
)

const usage = `daemonplan shows what the Kubernetes v1.34 DaemonSet controller would do in one
sync of a cluster snapshot, without an API server.

Usage:
  daemonplan plan    -f FILE [--now RFC3339] [-o table|json] [--strict] [--ds [NS/]NAME]
  daemonplan explain -f FILE [--now RFC3339] [--strict] [--ds [NS/]NAME] NODE
  daemonplan help

Commands:
  plan      print the sync's plan: pod creates and deletes, adoptions,
            ControllerRevision writes, the status it writes and the rollout
            status kubectl would print.
  explain   print the decision for one node: shouldRun,
            shouldContinueRunning, the reason, the blocking taint or
            nodeSelector key, and the plan's writes on that node.

Flags:
  -f, --filename FILE  what 'kubectl get ... -o yaml' or '-o json' prints: a List,
                       single objects or a multi-document YAML stream holding one
                       DaemonSet and its nodes, pods and controllerrevisions;
                       '-' reads standard input. Other kinds are ignored. An
                       OpenKruise Advanced DaemonSet (apps.kruise.io) is planned
                       with its partition, update selector, paused and
                       partitioned scaling; what daemonplan cannot honour
                       (in-place update, lifecycle hooks, image pre-download)
                       is printed as a warning.
  --now RFC3339        the controller's clock, e.g. 2025-06-01T12:00:00Z:
                       availability (minReadySeconds) is judged at this instant.
                       Default: the current time, in UTC.
  -o, --output FORMAT  plan only: table (default) or json (the conformance plan
                       schema, kube/testdata/conformance/README.md).
  --strict             refuse a DaemonSet the API server would reject: print its
                       field errors and exit 1. Without it, such findings are
                       printed to stderr as 'warning: FIELD: TYPE: DETAIL' lines
                       (and under "warnings" in JSON), and the plan is what the
                       controller, which trusts the API server, would do.
  --ds [NS/]NAME       the DaemonSet to plan when the input holds several.

Exit status:
  0  the plan or explanation was printed. A plan whose sync would fail upstream
     (non-empty "errors", shown under ERRORS in the table) still exits 0: that
     failure is the controller's result, which the plan reports, not a failure
     to compute it.
  1  unreadable or malformed input, no DaemonSet or several, a spec refused by
     --strict, or a node that explain cannot find.
  2  usage error: unknown command or flag, bad flag value, missing argument.
`

// run is the whole command: it parses args (without the program name), reads
// the input from a file or stdin and writes to stdout and stderr. It returns
// the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now}
	return c.run(args)
}

// cli holds the command's I/O and clock.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// now is the default of --now.
	now func() time.Time
}

func (c *cli) run(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "plan":
		return c.plan(args[1:])
	case "explain":
		return c.explain(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, usage)
		return exitOK
	}
	return c.usageError("unknown command %q", args[0])
}

// usageError prints a one-line message and returns exitUsage.
func (c *cli) usageError(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "daemonplan: %s (run 'daemonplan help' for usage)\n", oneLine(fmt.Sprintf(format, args...)))
	return exitUsage
}

// fail prints a one-line message and returns exitError.
func (c *cli) fail(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "daemonplan: %s\n", oneLine(fmt.Sprintf(format, args...)))
	return exitError
}

// oneLine folds a multi-line message (as some decoders produce) into one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// common are the flags of every command.
type common struct {
	file   string
	now    string
	strict bool
	ds     string
}

func newFlagSet(name string, o *common) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported by the caller, on one line
	fs.StringVar(&o.file, "f", "", "input file, - for stdin")
	fs.StringVar(&o.file, "filename", "", "input file, - for stdin")
	fs.StringVar(&o.now, "now", "", "the sync's instant, RFC 3339 (default: the current time, UTC)")
	fs.BoolVar(&o.strict, "strict", false, "refuse a DaemonSet the API server would reject")
	fs.StringVar(&o.ds, "ds", "", "[NAMESPACE/]NAME of the DaemonSet, if the input holds several")
	return fs
}

// errHelp is returned by parse when -h was given and usage printed.
var errHelp = errors.New("help requested")

// parse parses args with fs, allowing flags after positional arguments
// (explain NODE -f FILE), and returns the positional arguments. Everything
// after "--" is positional.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, err
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError turns a parse error into an exit status.
func (c *cli) flagError(cmd string, err error) int {
	if errors.Is(err, errHelp) {
		fmt.Fprint(c.stdout, usage)
		return exitOK
	}
	return c.usageError("%s: %v", cmd, err)
}

// input is a parsed, loaded snapshot.
type input struct {
	cluster *load.Cluster
	now     time.Time
	// kruise is set when the DaemonSet is an OpenKruise Advanced DaemonSet.
	kruise *convert.Kruise
}

// load checks the common flags and reads the snapshot. On failure it prints
// the message and returns the exit status (non-zero).
func (c *cli) load(cmd string, o *common) (*input, int) {
	if o.file == "" {
		return nil, c.usageError("%s: -f FILE is required (- reads standard input)", cmd)
	}
	now := c.now().UTC()
	if o.now != "" {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(o.now))
		if err != nil {
			return nil, c.usageError("%s: --now %q: want RFC 3339, e.g. 2025-06-01T12:00:00Z", cmd, o.now)
		}
		now = t
	}
	var ns, name string
	if o.ds != "" {
		name = o.ds
		if i := strings.IndexByte(o.ds, '/'); i >= 0 {
			ns, name = o.ds[:i], o.ds[i+1:]
		}
		if name == "" || strings.Contains(name, "/") {
			return nil, c.usageError("%s: --ds %q: want NAME or NAMESPACE/NAME", cmd, o.ds)
		}
	}

	r := c.stdin
	src := "standard input"
	if o.file != "-" {
		f, err := os.Open(o.file)
		if err != nil {
			return nil, c.fail("%s: %v", cmd, err)
		}
		defer f.Close()
		r, src = f, o.file
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, c.fail("%s: %s: %v", cmd, src, err)
	}
	objs, err := load.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, c.fail("%s: %s: %v", cmd, src, err)
	}
	kruise, err := addKruise(objs, data)
	if err != nil {
		return nil, c.fail("%s: %s: %v", cmd, src, err)
	}
	cl, err := objs.Cluster(ns, name)
	switch {
	case errors.Is(err, load.ErrManyDaemonSets):
		return nil, c.fail("%s: %s: %v; pick one with --ds NAMESPACE/NAME", cmd, src, err)
	case errors.Is(err, load.ErrNoDaemonSet):
		return nil, c.fail("%s: %s: %v; include it, e.g. kubectl get ds/NAME,nodes,pods,controllerrevisions -o yaml", cmd, src, err)
	case err != nil:
		return nil, c.fail("%s: %s: %v", cmd, src, err)
	}
	return &input{cluster: cl, now: now, kruise: kruise[cl.DaemonSet]}, exitOK
}

// sync runs the planner and reports validation findings on stderr: as
// warnings, or with strict as the reason for refusing (status exitError).
func (c *cli) sync(cmd string, in *input, strict bool) (daemonplan.Plan, int) {
	opts := planner.Options{Strict: strict}
	if k := in.kruise; k != nil {
		opts.Progressive, opts.Placement.BurstReplicas = k.Progressive, k.BurstReplicas
		for _, w := range k.Warnings {
			fmt.Fprintln(c.stderr, finding("warning", w))
		}
	}
	p, err := planner.Plan(in.cluster, in.now, opts)
	if err != nil {
		var fes field.ErrorList
		if errors.As(err, &fes) {
			ds := in.cluster.DaemonSet
			fmt.Fprintf(c.stderr, "daemonplan: %s: DaemonSet %s/%s is invalid (--strict): %d field error(s)\n", cmd, ds.Namespace, ds.Name, len(fes))
			for _, fe := range fes {
				fmt.Fprintln(c.stderr, finding("error", fe))
			}
			return p, exitError
		}
		return p, c.fail("%s: %v", cmd, err)
	}
	for _, w := range p.Warnings {
		fmt.Fprintln(c.stderr, finding("warning", w))
	}
	return p, exitOK
}

// finding renders a validation finding as "LEVEL: FIELD: TYPE[: DETAIL]".
func finding(level string, fe *field.Error) string {
	s := level + ": " + fe.Field + ": " + fe.Type.String()
	if d := oneLine(fe.Detail); d != "" {
		s += ": " + d
	}
	return s
}
