package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
)

// validateRuns is how often validate runs upstream on each case: enough that
// a harness departing from an API server in map-ordered choices shows up.
const validateRuns = 20

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	args := os.Args[2:]
	var err error
	switch os.Args[1] {
	case "validate":
		err = validateMain(args)
	case "expect":
		err = expectMain(args)
	case "recheck":
		err = recheckMain(args)
	case "shrink":
		err = shrinkMain(args)
	case "fuzz":
		err = fuzzMain(args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "updiff:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: updiff validate DIR... | expect [-runs N] DIR... | recheck DIR... | shrink IN OUT | fuzz [flags]")
	os.Exit(2)
}

// validateMain checks that upstream, as the harness runs it, conforms to
// each case's expected.json in every run. It fails when any case does.
func validateMain(dirs []string) error {
	failed := 0
	for _, dir := range dirs {
		if diffs := validateCase(dir); len(diffs) > 0 {
			failed++
			fmt.Printf("FAIL %s\n  %s\n", dir, strings.Join(diffs, "\n  "))
			continue
		}
		fmt.Printf("ok   %s\n", dir)
	}
	fmt.Printf("%d passed, %d failed\n", len(dirs)-failed, failed)
	if failed > 0 {
		return fmt.Errorf("%d cases failed", failed)
	}
	return nil
}

func validateCase(dir string) []string {
	c, err := conformance.ReadCase(dir)
	if err != nil {
		return []string{err.Error()}
	}
	cl, err := decodeCluster(c.Cluster, c.Now)
	if err != nil {
		return []string{err.Error()}
	}
	for i := range validateRuns {
		o, err := runUpstream(cl)
		if err != nil {
			return []string{err.Error()}
		}
		if d := conformance.ComparePlans(&c.Want, &o.Plan); len(d) > 0 {
			head := fmt.Sprintf("run %d:", i)
			return append(append([]string{head}, d...), "actions:\n    "+strings.Join(o.Actions, "\n    "))
		}
	}
	return nil
}

// expectMain writes expected.json (and actions.txt, upstream's writes in
// order) into each case folder from runs upstream runs.
func expectMain(args []string) error {
	fs := flag.NewFlagSet("expect", flag.ExitOnError)
	runs := fs.Int("runs", 30, "upstream runs per case")
	_ = fs.Parse(args)
	for _, dir := range fs.Args() {
		cl, err := readCluster(dir)
		if err != nil {
			return err
		}
		exp, outs, err := buildExpectation(cl, *runs)
		if err != nil {
			return err
		}
		if err := writeExpectation(dir, exp, outs[0]); err != nil {
			return err
		}
	}
	return nil
}

// recheckMain compares daemonplan with upstream again on saved clusters,
// e.g. after a fix.
func recheckMain(args []string) error {
	fs := flag.NewFlagSet("recheck", flag.ExitOnError)
	dp := daemonplanFlags(fs)
	_ = fs.Parse(args)
	tmp, err := os.MkdirTemp("", "updiff-recheck")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, dir := range fs.Args() {
		cl, err := readCluster(dir)
		if err != nil {
			return err
		}
		r, err := dp.check(cl, tmp, quickRuns)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		fmt.Printf("%s: diffs=%d sig=[%s]\n", dir, len(r.diffs), signature(r.diffs))
	}
	return nil
}

// writeExpectation writes expected.json and actions.txt into dir.
func writeExpectation(dir string, exp *expectation, first *outcome) error {
	b, err := exp.marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "expected.json"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "actions.txt"), []byte(strings.Join(first.Actions, "\n")+"\n"), 0o644)
}
