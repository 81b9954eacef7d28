package kubesync_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/revision"
)

var updateSeeds = flag.Bool("update-core-seeds", false, "rewrite the core module's FuzzSyncConformance seeds from the conformance cases")

// coreSeedDir is the core module's seed corpus of FuzzSyncConformance.
var coreSeedDir = filepath.Join("..", "..", "testdata", "fuzz", "FuzzSyncConformance")

// coreSnapshot is the JSON form FuzzSyncConformance decodes: a conformance
// case converted to the core's snapshot types.
type coreSnapshot struct {
	DaemonSet *api.DaemonSet
	Nodes     []api.Node
	Pods      []api.Pod
	Revisions []revision.Revision
	Now       time.Time
}

// TestCoreFuzzSeeds checks, and with -update-core-seeds writes, the seeds
// of the core module's FuzzSyncConformance: the extra cases and the
// smallest seed cases, converted as Input converts them. Each seed
// must plan without error and pass daemonplan.CheckPlan; that the files
// still match today's conversion is not checked (rewrite them with the
// flag after a change to package convert).
func TestCoreFuzzSeeds(t *testing.T) {
	if *updateSeeds {
		writeCoreSeeds(t)
	}
	files, err := filepath.Glob(filepath.Join(coreSeedDir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds in %s (%v); run with -update-core-seeds", coreSeedDir, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			if len(lines) < 3 || lines[0] != "go test fuzz v1" {
				t.Fatalf("not a fuzz corpus file")
			}
			raw, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
			if err != nil {
				t.Fatal(err)
			}
			var s coreSnapshot
			if err := json.Unmarshal([]byte(raw), &s); err != nil {
				t.Fatal(err)
			}
			in := daemonplan.Input{DaemonSet: s.DaemonSet, Nodes: s.Nodes, Pods: s.Pods, Revisions: s.Revisions, Now: s.Now}
			p, err := daemonplan.Sync(in, daemonplan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := daemonplan.CheckPlan(in, p); err != nil {
				t.Error(err)
			}
		})
	}
}

func writeCoreSeeds(t *testing.T) {
	cases, err := conformance.Cases(conformance.CasesDir())
	if err != nil {
		t.Fatal(err)
	}
	var extras, seeds []conformance.Case
	for _, c := range cases {
		if strings.HasPrefix(c.Name, "extra-") {
			extras = append(extras, c)
		} else {
			seeds = append(seeds, c)
		}
	}
	sort.SliceStable(seeds, func(i, j int) bool { return len(seeds[i].Cluster) < len(seeds[j].Cluster) })
	chosen := append(extras, seeds[:min(8, len(seeds))]...)
	if err := os.RemoveAll(coreSeedDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(coreSeedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range chosen {
		cl, err := load.Read(bytes.NewReader(c.Cluster))
		if err != nil {
			t.Fatal(err)
		}
		ds, err := convert.DaemonSet(cl.DaemonSet)
		if err != nil {
			t.Fatal(err)
		}
		s := coreSnapshot{DaemonSet: ds, Nodes: convert.Nodes(cl.Nodes), Pods: convert.Pods(cl.Pods), Revisions: convert.Revisions(cl.Revisions), Now: c.Now}
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		// Mutations to start from: a few bytes derived from the case name.
		ops := sha256.Sum256([]byte(c.Name))
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n[]byte(%q)\n", raw, ops[:12])
		if err := os.WriteFile(filepath.Join(coreSeedDir, c.Name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
