package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apps "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
)

// keptPerClass is how many clusters fuzz saves per disagreement signature:
// a few examples to shrink, not thousands of copies of one bug.
const keptPerClass = 3

// fuzzMain compares daemonplan with upstream on n clusters, each derived
// from seed and its index, so any one can be made again alone.
func fuzzMain(args []string) error {
	fs := flag.NewFlagSet("fuzz", flag.ExitOnError)
	source := fs.String("source", "mutate", "mutate: 1-4 mutations of a recorded case; gen: a cluster from scratch, then 0-3 mutations")
	n := fs.Int("n", 100, "clusters")
	seed := fs.Int64("seed", 1, "random seed")
	runs := fs.Int("runs", quickRuns, "upstream runs per cluster before a disagreement")
	out := fs.String("out", "found", "where clusters that disagree are saved")
	// No default from conformance.CasesDir: built from vendor/, it points
	// into the vendored copy, which has no cases. run.sh passes the set of
	// the Kubernetes version it builds against.
	casesDir := fs.String("cases", "", "the recorded cases mutate starts from")
	exotic := fs.Bool("exotic", false, "let half the mutations set rarely used PodSpec and Container fields")
	verbose := fs.Bool("v", false, "print upstream's counts for every cluster that agrees")
	dp := daemonplanFlags(fs)
	_ = fs.Parse(args)
	if *source != "mutate" && *source != "gen" {
		return fmt.Errorf("fuzz: -source %q: want mutate or gen", *source)
	}
	var bases []*cluster
	if *source == "mutate" {
		if *casesDir == "" {
			return errors.New("fuzz: -source mutate needs -cases")
		}
		cases, err := conformance.Cases(*casesDir)
		if err != nil {
			return err
		}
		for _, c := range cases {
			cl, err := decodeCluster(c.Cluster, c.Now)
			if err != nil {
				return fmt.Errorf("%s: %w", c.Dir, err)
			}
			bases = append(bases, cl)
		}
	}
	tmp, err := os.MkdirTemp("", "updiff-fuzz")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	classes := map[string]int{}
	disagreements, harnessErrors := 0, 0
	for i := range *n {
		if i%100 == 0 {
			fmt.Printf("PROGRESS %d\n", i)
		}
		name := fmt.Sprintf("%s-%d-%d", *source, *seed, i)
		r := rand.New(rand.NewSource(*seed*1000003 + int64(i)))
		var c *cluster
		var muts []string
		if *source == "mutate" {
			c = bases[r.Intn(len(bases))].clone()
			for k := 1 + r.Intn(4); k > 0; k-- {
				muts = append(muts, mutate(r, c, *exotic))
			}
		} else {
			c = generate(r)
			for k := r.Intn(4); k > 0; k-- {
				muts = append(muts, mutate(r, c, *exotic))
			}
		}
		if r.Intn(3) == 0 && addCurrentRevision(r, c) {
			muts = append(muts, "addCurrentRevision")
		}
		if r.Intn(4) == 0 && statusAtFixpoint(r, c) {
			muts = append(muts, "statusFixpoint")
		}
		res, err := dp.check(c, tmp, *runs)
		if err != nil {
			harnessErrors++
			fmt.Printf("%s: harness error: %v\n", name, err)
			continue
		}
		if len(res.diffs) == 0 {
			if *verbose {
				e := res.exp
				fmt.Printf("%s: ok create=%d delete=%d adopt=%d relabel=%d revisions=%d/%d/%d errors=%d groups=%d deterministic=%t\n", name,
					len(e.Create), len(e.Delete), len(e.Adopt), len(e.Relabel), len(e.Revisions.Create), len(e.Revisions.Update),
					len(e.Revisions.Delete), len(e.Errors), len(e.Groups), e.IsDeterministic())
			}
			continue
		}
		disagreements++
		sig := signature(res.diffs)
		classes[sig]++
		if classes[sig] <= keptPerClass {
			if err := save(filepath.Join(*out, name), tmp, res, "mutations: "+strings.Join(muts, "; ")); err != nil {
				return err
			}
		}
		fmt.Printf("%s: DIFF [%s] mutations=%s\n", name, sig, strings.Join(muts, ";"))
	}
	fmt.Printf("SUMMARY source=%s seed=%d n=%d disagreements=%d harness-errors=%d\n", *source, *seed, *n, disagreements, harnessErrors)
	for _, sig := range slices.Sorted(maps.Keys(classes)) {
		fmt.Printf("CLASS %5d %s\n", classes[sig], sig)
	}
	if harnessErrors > 0 {
		return fmt.Errorf("%d harness errors", harnessErrors)
	}
	return nil
}

// addCurrentRevision adds a ControllerRevision for the current template, as
// if an earlier sync had made it, so that the sync takes the path where
// upstream matches an existing revision. It reports whether there was none.
func addCurrentRevision(r *rand.Rand, c *cluster) bool {
	h := currentHash(c.DS)
	var maxRevision int64
	for _, rv := range c.Revisions {
		if rv.Name == c.DS.Name+"-"+h {
			return false
		}
		maxRevision = max(maxRevision, rv.Revision)
	}
	c.Revisions = append(c.Revisions, revisionFor(r, c.DS, maxRevision+int64(r.Intn(2)), h))
	return true
}

// statusAtFixpoint sets c's status to what upstream would write (and
// sometimes observedGeneration one ahead), so that the sync takes the path
// where upstream writes no status. It reports whether upstream synced.
func statusAtFixpoint(r *rand.Rand, c *cluster) bool {
	dedupe(c)
	o, err := runUpstream(c)
	if err != nil || len(o.Errors) > 0 {
		return false
	}
	st := o.Status
	c.DS.Status = apps.DaemonSetStatus{
		CurrentNumberScheduled: st.CurrentNumberScheduled, NumberMisscheduled: st.NumberMisscheduled,
		DesiredNumberScheduled: st.DesiredNumberScheduled, NumberReady: st.NumberReady,
		ObservedGeneration:     st.ObservedGeneration + int64(r.Intn(2)),
		UpdatedNumberScheduled: st.UpdatedNumberScheduled, NumberAvailable: st.NumberAvailable,
		NumberUnavailable: st.NumberUnavailable, CollisionCount: st.CollisionCount,
	}
	return true
}

// save keeps a disagreement in dir: the cluster as written in tmp,
// upstream's expected.json and writes, daemonplan's plan and the
// differences.
func save(dir, tmp string, res *result, note string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"cluster.json", "now.txt"} {
		b, err := os.ReadFile(filepath.Join(tmp, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	if err := writeExpectation(dir, res.exp, res.outs[0]); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "daemonplan.json"), res.plan, 0o644); err != nil {
		return err
	}
	text := note + "\nsignature: " + signature(res.diffs) + "\n" + strings.Join(res.diffs, "\n") + "\n"
	return os.WriteFile(filepath.Join(dir, "diffs.txt"), []byte(text), 0o644)
}
