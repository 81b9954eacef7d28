package main

import (
	"bytes"
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Upstream runs per cluster: quickRuns first, and when daemonplan disagrees,
// thoroughRuns, so that a choice upstream makes rarely (Go map order over
// many candidates) is seen before a disagreement is reported.
const (
	quickRuns    = 6
	thoroughRuns = 300
)

// daemonplanCLI runs the daemonplan command on a cluster folder.
type daemonplanCLI struct {
	bin  *string
	args *string
}

// daemonplanFlags adds -daemonplan and -dpargs to fs.
func daemonplanFlags(fs *flag.FlagSet) daemonplanCLI {
	return daemonplanCLI{
		bin:  fs.String("daemonplan", "daemonplan", "the daemonplan binary (run.sh builds it from this checkout)"),
		args: fs.String("dpargs", "", `more arguments for "daemonplan plan", space separated (e.g. "--kubernetes-version 1.34")`),
	}
}

// plan runs "daemonplan plan" on the cluster in dir and returns its JSON,
// or its output and standard error when it fails.
func (d daemonplanCLI) plan(dir string, now time.Time) ([]byte, error) {
	args := append([]string{"plan", "-f", filepath.Join(dir, "cluster.json"), "--now", now.UTC().Format(time.RFC3339), "-o", "json"}, strings.Fields(*d.args)...)
	cmd := exec.Command(*d.bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return append(out, stderr.Bytes()...), fmt.Errorf("%s: %w: %s", *d.bin, err, stderr.String())
	}
	return out, nil
}

// result is one comparison of daemonplan with upstream.
type result struct {
	diffs []string
	exp   *expectation
	plan  []byte     // daemonplan's output
	outs  []*outcome // upstream's runs
}

// check writes c into dir, runs upstream runs times and daemonplan once on
// what was written, and compares.
func (d daemonplanCLI) check(c *cluster, dir string, runs int) (*result, error) {
	if err := writeCluster(c, dir); err != nil {
		return nil, err
	}
	// Upstream reads the file back, so both sides see exactly its bytes.
	written, err := readCluster(dir)
	if err != nil {
		return nil, err
	}
	exp, outs, err := buildExpectation(written, runs)
	if err != nil {
		return nil, err
	}
	r := &result{exp: exp, outs: outs}
	if r.plan, err = d.plan(dir, written.Now); err != nil {
		r.diffs = []string{"daemonplan: " + err.Error()}
		return r, nil
	}
	if r.diffs, err = exp.compare(r.plan); err != nil {
		return nil, err
	}
	if len(r.diffs) > 0 && runs < thoroughRuns {
		return d.check(c, dir, thoroughRuns)
	}
	return r, nil
}

// signature sums up a disagreement by the parts that differ (status down to
// the field), so that many clusters with one cause count as one class.
func signature(diffs []string) string {
	var parts []string
	for _, d := range diffs {
		first, _, _ := strings.Cut(d, "\n")
		key, _, _ := strings.Cut(first, ":")
		switch {
		case strings.Contains(first, "mismatch"):
			key = strings.Fields(first)[0]
			if key == "status" {
				key += statusFields(d)
			}
		case strings.HasPrefix(first, "create:") || strings.HasPrefix(first, "delete:"):
			if w := strings.Fields(first); len(w) > 1 {
				key = w[0] + w[1]
			}
		case strings.HasPrefix(first, "errors:"):
			key = first[:min(len(first), 30)]
		}
		parts = append(parts, key)
	}
	slices.Sort(parts)
	return strings.Join(slices.Compact(parts), " ")
}

// statusFields lists, as ".field", the status fields a cmp.Diff of two
// statuses shows as removed.
func statusFields(diff string) string {
	var fields string
	for _, l := range strings.Split(diff, "\n") {
		l = strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(l, "- "); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				fields += "." + strings.TrimSuffix(f[0], ":")
			}
		}
	}
	return fields
}
