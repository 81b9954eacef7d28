package kubesync_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// FuzzSync loads a snapshot from the fuzzer's bytes and plans it for each
// of its DaemonSets, as the CLI does, checking that:
//
//  1. Sync fails only for a conversion error, an input the core refuses
//     (daemonplan.ErrInvalidInput) or, with Strict, the field errors;
//  2. the plan passes daemonplan.CheckPlan against the converted input:
//     nothing deleted, released or relabelled that the DaemonSet does not
//     own, no terminating pod adopted;
//  3. planning twice gives the same JSON, whose every list is present;
//  4. Strict plans the same or refuses with the warnings the plan reports;
//  5. a Planner plans the same, at its first sync and when it syncs the
//     snapshot again from what it kept.
func FuzzSync(f *testing.F) {
	cases, err := conformance.SmallestCases(4)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.Cluster, c.Now.Unix())
	}
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}}}}}
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"},"ownerReferences":[{"kind":"ReplicaSet","name":"r","controller":true}]},"spec":{"nodeName":"n"}}`), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, nowSec int64) {
		objs, err := load.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		now := time.Unix(nowSec%(1<<40), 0).UTC()
		for _, ds := range objs.DaemonSets {
			cl, err := objs.Snapshot(ds.Namespace, ds.Name)
			if err != nil {
				t.Fatalf("Snapshot(%s/%s): %v", ds.Namespace, ds.Name, err)
			}
			p, err := kubesync.Sync(cl, now, kubesync.State{}, kubesync.Options{})
			if err != nil {
				if _, cerr := convert.DaemonSet(ds); cerr == nil && !errors.Is(err, daemonplan.ErrInvalidInput) {
					t.Fatalf("Sync: %v", err)
				}
				continue
			}
			dsIn, _ := convert.DaemonSet(ds)
			in := daemonplan.Input{DaemonSet: dsIn, Nodes: convert.Nodes(cl.Nodes), Pods: convert.Pods(cl.Pods),
				Revisions: convert.Revisions(cl.Revisions), Now: now}
			if err := daemonplan.CheckPlan(in, p); err != nil {
				t.Fatalf("CheckPlan: %v", err)
			}
			out, err := json.Marshal(kubesync.JSON(p, upstream.Latest))
			if err != nil {
				t.Fatal(err)
			}
			var lists map[string]any
			if err := json.Unmarshal(out, &lists); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"nodes", "create", "delete", "adopt", "release", "relabel", "errors", "warnings"} {
				if _, ok := lists[k].([]any); !ok {
					t.Fatalf("JSON %q is %v, want a list", k, lists[k])
				}
			}
			p2, err := kubesync.Sync(cl, now, kubesync.State{}, kubesync.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if out2, _ := json.Marshal(kubesync.JSON(p2, upstream.Latest)); !bytes.Equal(out, out2) {
				t.Fatalf("planning twice differs:\n%s\n%s", out, out2)
			}
			strict, err := kubesync.Sync(cl, now, kubesync.State{}, kubesync.Options{Options: daemonplan.Options{Strict: true}})
			var fes field.ErrorList
			switch {
			case err == nil && len(p.Warnings) == 0:
				if out3, _ := json.Marshal(kubesync.JSON(strict, upstream.Latest)); !bytes.Equal(out, out3) {
					t.Fatalf("Strict plans differently without findings")
				}
			case errors.As(err, &fes) && len(fes) == len(p.Warnings):
			default:
				t.Fatalf("Strict: error %v with %d warnings", err, len(p.Warnings))
			}
			pl, err := kubesync.NewPlanner(kubesync.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				got, err := pl.Sync(cl, now, kubesync.State{})
				if err != nil {
					t.Fatalf("Planner sync %d: %v, Sync planned", i, err)
				}
				if out4, _ := json.Marshal(kubesync.JSON(got, upstream.Latest)); !bytes.Equal(out, out4) {
					t.Fatalf("Planner sync %d differs from Sync:\n%s\n%s", i, out4, out)
				}
			}
		}
	})
}
