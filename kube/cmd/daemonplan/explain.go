package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// explain runs "daemonplan explain".
func (c *cli) explain(args []string) int {
	var o common
	fs := newFlagSet("explain", &o)
	pos, err := parse(fs, args)
	if err != nil {
		return c.flagError("explain", err)
	}
	switch {
	case len(pos) == 0:
		return c.usageError("explain: NODE is required")
	case len(pos) > 1:
		return c.usageError("explain: want one NODE, got %d arguments", len(pos))
	}
	node := pos[0]
	in, code := c.load("explain", &o)
	if code != exitOK {
		return code
	}
	p, code := c.sync("explain", in, o.strict)
	if code != exitOK {
		return code
	}
	for _, nd := range p.Nodes {
		if nd.Node == node {
			if err := writeExplain(c.stdout, p, nd); err != nil {
				return c.fail("explain: %v", err)
			}
			return exitOK
		}
	}
	return c.fail("explain: node %q is not in the input (%d nodes)", node, len(p.Nodes))
}

// writeExplain renders the decision about one node and the plan's pod
// writes on it.
func writeExplain(w io.Writer, p daemonplan.Plan, nd placement.NodeDecision) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	field := func(k, v string) {
		if k != "" {
			k += ":"
		}
		fmt.Fprintf(tw, "%s\t%s\n", k, v)
	}
	field("DaemonSet", p.Namespace+"/"+p.Name)
	field("Node", nd.Node)
	field("ShouldRun", strconv.FormatBool(nd.ShouldRun))
	field("ShouldContinueRunning", strconv.FormatBool(nd.ShouldContinueRunning))
	field("Reason", nd.Reason.String())
	field("Message", nd.Message())
	switch nd.Reason {
	case placement.NodeSelectorMismatch:
		field("NodeSelectorKey", nd.Key)
	case placement.UntoleratedNoExecute, placement.UntoleratedNoSchedule:
		field("Taint", nd.Taint.String())
	}
	var writes []string
	for _, cr := range p.Create {
		if cr.Node == nd.Node {
			writes = append(writes, "create pod (hash "+cr.Labels[api.LabelRevisionHash]+")")
		}
	}
	for _, d := range p.Delete {
		if d.Node == nd.Node {
			writes = append(writes, "delete pod "+d.Pod+" ("+d.Reason.String()+")")
		}
	}
	if len(writes) == 0 {
		writes = append(writes, "no pod writes on this node")
	}
	field("Plan", writes[0])
	for _, s := range writes[1:] {
		field("", s) // a continuation line
	}
	return tw.Flush()
}
