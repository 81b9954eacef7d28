package fakeclient_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/load"
)

const cluster = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default, uid: ds-uid, generation: 1}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent:v1}]}
status: {desiredNumberScheduled: 1, observedGeneration: 1}
`

// TestUpdateDaemonSet checks that DaemonSet updates behave as the API
// server's: the status subresource changes the status only, and an update
// of the DaemonSet keeps the stored status. Each write starts from a copy
// read before the other write, as an informer's copy lags behind.
func TestUpdateDaemonSet(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, reason string
		statusFirst  bool
	}{
		{"status from a stale copy", "a controller writes the status of the copy it planned from, after the template changed", false},
		{"update from a stale copy", "a user updates a copy read before the controller wrote the status", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load.Read(strings.NewReader(cluster))
			if err != nil {
				t.Fatal(err)
			}
			fc := fakeclient.New(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			dsClient := fc.AppsV1().DaemonSets("default")
			stale, err := dsClient.Get(ctx, "agent", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			spec := stale.DeepCopy()
			spec.Spec.Template.Spec.Containers[0].Image = "agent:v2"
			spec.Generation = 2
			status := stale.DeepCopy()
			status.Status.DesiredNumberScheduled = 3
			writes := []func() error{
				func() error { _, err := dsClient.Update(ctx, spec, metav1.UpdateOptions{}); return err },
				func() error { _, err := dsClient.UpdateStatus(ctx, status, metav1.UpdateOptions{}); return err },
			}
			if tc.statusFirst {
				writes[0], writes[1] = writes[1], writes[0]
			}
			for _, w := range writes {
				if err := w(); err != nil {
					t.Fatal(err)
				}
			}
			got, err := dsClient.Get(ctx, "agent", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Generation != 2 || got.Spec.Template.Spec.Containers[0].Image != "agent:v2" || got.Status.DesiredNumberScheduled != 3 {
				t.Errorf("%s: stored generation %d, image %s, desiredNumberScheduled %d; want 2, agent:v2, 3 (both writes kept)",
					tc.reason, got.Generation, got.Spec.Template.Spec.Containers[0].Image, got.Status.DesiredNumberScheduled)
			}
		})
	}
}

// TestUpdateDaemonSetConflict: a DaemonSet write gives the stored object a
// new resourceVersion, and a write held to an older one is a Conflict, as
// the API server answers it: a controller that writes its status from a
// stale copy meets the conflict here as on a cluster.
func TestUpdateDaemonSetConflict(t *testing.T) {
	ctx := context.Background()
	c, err := load.Read(strings.NewReader(cluster))
	if err != nil {
		t.Fatal(err)
	}
	fc := fakeclient.New(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	dsClient := fc.AppsV1().DaemonSets("default")
	ds, err := dsClient.Get(ctx, "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds.Status.DesiredNumberScheduled = 3
	first, err := dsClient.UpdateStatus(ctx, ds, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if first.ResourceVersion == "" || first.ResourceVersion == ds.ResourceVersion {
		t.Fatalf("the write left resourceVersion %q (was %q): want a new one", first.ResourceVersion, ds.ResourceVersion)
	}
	first.Status.DesiredNumberScheduled = 4
	if _, err := dsClient.UpdateStatus(ctx, first, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("a write held to the stored resourceVersion: %v", err)
	}
	first.Status.DesiredNumberScheduled = 5
	if _, err := dsClient.UpdateStatus(ctx, first, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("a write held to a resourceVersion no longer stored: err %v, want a Conflict", err)
	}
}
