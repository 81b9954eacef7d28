package progressive_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	stdcmp "cmp"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/kube/progressive"
)

// right is one verb on one resource, as RBAC grants it.
type right struct{ Verb, Group, Resource string }

// TestRBACRole runs every entry point (Start, Step, StepAll, Inspect,
// Pause, Resume, Promote, Abort, Undo), as a Driver recording its Events with an
// APIRecorder, through a canary, a pause, a promote, an abort and an
// undo, and checks that the API requests they made are
// exactly the rights of kube/rbac/daemonplan-rollout.yaml: none beyond
// it, and each of its rights used.
func TestRBACRole(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "rbac", "daemonplan-rollout.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatal(err)
	}
	var granted []right
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					granted = append(granted, right{v, g, res})
				}
			}
		}
	}

	c := newCluster(t, zones6, "")
	c.never["agent:bad"] = true
	dr := progressive.Driver{Client: c.fc, Recorder: &progressive.APIRecorder{Client: c.fc, Now: c.fc.Now,
		OnError: func(reason string, err error) { t.Errorf("event %s: %v", reason, err) }}}
	var used []right
	driver := func(f func()) {
		t.Helper()
		n := len(c.fc.Actions())
		f()
		for _, a := range c.fc.Actions()[n:] {
			if a.GetResource().Resource == "version" {
				continue // /version: public (system:public-info-viewer)
			}
			used = append(used, right{a.GetVerb(), a.GetResource().Group, a.GetResource().Resource})
		}
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	driver(func() {
		must(dr.Start(ctx, ns, dsName, progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: count(1)}}))
	})
	c.setImage("agent:v2")
	for range 5 {
		driver(func() { c.driveStep(dr) })
		c.tick()
	}
	driver(func() {
		must(progressive.Inspect(ctx, c.fc, ns, dsName, c.fc.Now()))
		must(dr.Pause(ctx, ns, dsName, ""))
		must(dr.Resume(ctx, ns, dsName))
		must(dr.Promote(ctx, ns, dsName))
	})
	for range 30 {
		driver(func() {
			if _, err := dr.StepAll(ctx, "", c.fc.Now()); err != nil {
				t.Fatal(err)
			}
		})
		c.tick()
	}
	driver(func() {
		must(dr.Start(ctx, ns, dsName, progressive.Policy{}))
	})
	c.setImage("agent:bad")
	for range 3 {
		driver(func() { c.driveStep(dr) })
		c.tick()
	}
	driver(func() {
		must(dr.Abort(ctx, ns, dsName, ""))
		must(dr.Undo(ctx, ns, dsName))
	})
	slices.SortFunc(used, cmpRight)
	used = slices.Compact(used)
	slices.SortFunc(granted, cmpRight)
	if diff := cmp.Diff(granted, used); diff != "" {
		t.Errorf("rights used by the driver mismatch the role (-role +used):\n%s", diff)
	}
}

func cmpRight(a, b right) int {
	return stdcmp.Compare(a.Group+"/"+a.Resource+"/"+a.Verb, b.Group+"/"+b.Resource+"/"+b.Verb)
}
