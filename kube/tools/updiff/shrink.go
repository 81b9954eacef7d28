package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// shrinkMain removes nodes (with their pods), then single nodes, pods and
// revisions, one at a time, for as long as daemonplan still disagrees with
// upstream in the same way, and saves the smallest cluster in OUT.
func shrinkMain(args []string) error {
	fs := flag.NewFlagSet("shrink", flag.ExitOnError)
	dp := daemonplanFlags(fs)
	_ = fs.Parse(args)
	if fs.NArg() != 2 {
		return errors.New("usage: updiff shrink [-daemonplan BIN] [-dpargs ARGS] IN OUT")
	}
	in, out := fs.Arg(0), fs.Arg(1)
	c, err := readCluster(in)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "updiff-shrink")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	res, err := dp.check(c.clone(), tmp, quickRuns)
	if err != nil {
		return err
	}
	if len(res.diffs) == 0 {
		return fmt.Errorf("shrink: %s: daemonplan agrees with upstream", in)
	}
	sig := signature(res.diffs)
	fmt.Println("signature:", sig)
	still := func(cand *cluster) bool {
		r, err := dp.check(cand.clone(), tmp, quickRuns)
		return err == nil && len(r.diffs) > 0 && signature(r.diffs) == sig
	}
	// try replaces c by each smaller candidate that keeps the signature.
	try := func(count func(*cluster) int, without func(*cluster, int) *cluster) bool {
		changed := false
		for i := 0; i < count(c); i++ {
			if cand := without(c, i); still(cand) {
				c, changed = cand, true
				i--
			}
		}
		return changed
	}
	nodes := func(c *cluster) int { return len(c.Nodes) }
	for changed := true; changed; {
		changed = try(nodes, withoutNodeAndPods)
		changed = try(nodes, withoutNode) || changed
		changed = try(func(c *cluster) int { return len(c.Pods) }, withoutPod) || changed
		changed = try(func(c *cluster) int { return len(c.Revisions) }, withoutRevision) || changed
	}
	if res, err = dp.check(c.clone(), tmp, thoroughRuns); err != nil {
		return err
	}
	if err := save(out, tmp, res, "shrunk from "+in); err != nil {
		return err
	}
	fmt.Printf("nodes=%d pods=%d revisions=%d\n%s\n", len(c.Nodes), len(c.Pods), len(c.Revisions), strings.Join(res.diffs, "\n"))
	return nil
}

func withoutNodeAndPods(c *cluster, i int) *cluster {
	o := withoutNode(c, i)
	name := c.Nodes[i].Name
	o.Pods = keep(o.Pods, func(p *v1.Pod) bool { return p.Spec.NodeName != name })
	return o
}

func withoutNode(c *cluster, i int) *cluster {
	o := c.clone()
	o.Nodes = slices.Delete(o.Nodes, i, i+1)
	return o
}

func withoutPod(c *cluster, i int) *cluster {
	o := c.clone()
	o.Pods = slices.Delete(o.Pods, i, i+1)
	return o
}

func withoutRevision(c *cluster, i int) *cluster {
	o := c.clone()
	o.Revisions = slices.Delete(o.Revisions, i, i+1)
	return o
}
