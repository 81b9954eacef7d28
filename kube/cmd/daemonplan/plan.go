package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/planner"
	"github.com/daemonplan/daemonplan/rollout"
)

// plan runs "daemonplan plan".
func (c *cli) plan(args []string) int {
	var o common
	fs := newFlagSet("plan", &o)
	output := "table"
	fs.StringVar(&output, "o", "table", "output format: table or json")
	fs.StringVar(&output, "output", "table", "output format: table or json")
	pos, err := parse(fs, args)
	if err != nil {
		return c.flagError("plan", err)
	}
	if len(pos) > 0 {
		return c.usageError("plan: unexpected argument %q", pos[0])
	}
	if output != "table" && output != "json" {
		return c.usageError("plan: -o %q: want table or json", output)
	}
	in, code := c.load("plan", &o)
	if code != exitOK {
		return code
	}
	p, code := c.sync("plan", in, o.strict)
	if code != exitOK {
		return code
	}
	if output == "json" {
		b, err := json.MarshalIndent(planner.JSON(p), "", "  ")
		if err != nil {
			return c.fail("plan: %v", err)
		}
		b = append(b, '\n')
		if _, err := c.stdout.Write(b); err != nil {
			return c.fail("plan: %v", err)
		}
		return exitOK
	}
	if err := writeTable(c.stdout, p); err != nil {
		return c.fail("plan: %v", err)
	}
	return exitOK
}

// writeTable renders p for people: the DaemonSet line of 'kubectl get ds'
// with the status the sync writes, then each non-empty group of writes in
// the order they are applied, the errors upstream's sync would return, and
// the rollout status kubectl would print.
func writeTable(w io.Writer, p daemonplan.Plan) error {
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	row := func(cells ...any) {
		for i, c := range cells {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c)
		}
		fmt.Fprint(tw, "\n")
	}
	// Sections are separated by a blank line; tabwriter aligns each
	// section's columns on its own, since a line without tabs ends a block.
	section := func(title string, n int) {
		fmt.Fprintf(tw, "\n%s (%d)\n", title, n)
	}

	st := p.Status
	row("NAMESPACE", "NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE")
	row(p.Namespace, p.Name, st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable)

	if len(p.Create) > 0 {
		section("CREATE", len(p.Create))
		row("NODE", "HASH")
		for _, cr := range p.Create {
			row(cr.Node, cr.Labels[api.LabelRevisionHash])
		}
	}
	if len(p.Delete) > 0 {
		section("DELETE", len(p.Delete))
		row("POD", "NODE", "REASON")
		for _, d := range p.Delete {
			row(d.Pod, orNone(d.Node), d.Reason)
		}
	}
	if len(p.Adopt)+len(p.Release) > 0 {
		section("ADOPT/RELEASE PODS", len(p.Adopt)+len(p.Release))
		row("POD", "ACTION")
		for _, name := range p.Adopt {
			row(name, "adopt")
		}
		for _, name := range p.Release {
			row(name, "release")
		}
	}
	if len(p.Relabel) > 0 {
		section("RELABEL PODS", len(p.Relabel))
		row("POD", "HASH")
		for _, r := range p.Relabel {
			row(r.Pod, r.Hash)
		}
	}
	rv := p.Revisions
	if n := len(rv.Create) + len(rv.Update) + len(rv.Delete) + len(rv.Adopt) + len(rv.Release); n > 0 {
		section("CONTROLLERREVISIONS", n)
		row("NAME", "ACTION", "REVISION", "HASH")
		for _, r := range rv.Create {
			row(r.Name, "create", r.Revision, r.Labels[api.LabelRevisionHash])
		}
		for _, r := range rv.Update {
			row(r.Name, "update", r.Revision, r.Labels[api.LabelRevisionHash])
		}
		for _, name := range rv.Adopt {
			row(name, "adopt", "", "")
		}
		for _, name := range rv.Release {
			row(name, "release", "", "")
		}
		for _, name := range rv.Delete {
			row(name, "delete", "", "")
		}
	}
	if len(p.Errors) > 0 {
		section("ERRORS", len(p.Errors))
		for _, e := range p.Errors {
			fmt.Fprintln(tw, oneLine(e.Error()))
		}
	}
	if line := progressLine(p.Progress); line != "" {
		fmt.Fprintf(tw, "\nPROGRESSIVE: %s\n", line)
	}
	fmt.Fprintf(tw, "\n%s\n", strings.TrimRight(p.Rollout.Message, "\n"))
	return tw.Flush()
}

// progressLine renders what the rollout extensions decided, or "" when
// none is on.
func progressLine(pr rollout.Progress) string {
	if pr.Held == rollout.NotHeld && pr.Outdated == 0 && pr.HeldCreates == 0 && pr.Canary == nil && pr.Zones == nil {
		return ""
	}
	parts := []string{fmt.Sprintf("%d outdated nodes, %d may update now", pr.Outdated, pr.Allowed)}
	if pr.Partition > 0 {
		parts = append(parts, fmt.Sprintf("partition %d", pr.Partition))
	}
	if pr.HeldCreates > 0 {
		parts = append(parts, fmt.Sprintf("%d creates held by the partition", pr.HeldCreates))
	}
	if c := pr.Canary; c != nil {
		parts = append(parts, fmt.Sprintf("canary %s %v", c.Phase, c.Nodes))
	}
	if z := pr.Zones; z != nil {
		parts = append(parts, fmt.Sprintf("zones active %v waiting %v", z.Active, z.Waiting))
	}
	if pr.Held != rollout.NotHeld {
		parts = append(parts, "held: "+pr.Held.String())
	}
	return strings.Join(parts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
