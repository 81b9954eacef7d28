package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/kubesync"
)

// TestLeaderElection runs two replicas of the controller with
// --leader-elect on one fake clientset: only the one holding the Lease
// syncs while the DaemonSet gets its pods; when it stops, the other takes
// the lease over once it expires and rolls a new template out alone.
func TestLeaderElection(t *testing.T) {
	fc := readyCluster(t)
	o := options{leader: defaultLeaderOptions(), metricsAddr: "0", healthAddr: "0"}
	o.leader.Elect = true
	// Short but valid durations (lease > renew deadline > 1.2 retry
	// periods), so that the takeover takes a second, not 15.
	o.leader.LeaseDuration, o.leader.RenewDeadline, o.leader.RetryPeriod = time.Second, 500*time.Millisecond, 100*time.Millisecond

	type replica struct {
		syncs  atomic.Int64
		cancel context.CancelFunc
		done   chan error
	}
	var replicas [2]*replica
	for i := range replicas {
		r := &replica{done: make(chan error, 1)}
		c := &Controller{Client: fc, Namespace: "default", Now: time.Now, Recorder: record.NewFakeRecorder(1000),
			OnSync: func(kubesync.State, apply.Result) { r.syncs.Add(1) }}
		var ctx context.Context
		ctx, r.cancel = context.WithCancel(context.Background())
		go func() { r.done <- runController(ctx, c, fc, o) }()
		replicas[i] = r
	}
	defer func() {
		for _, r := range replicas {
			r.cancel()
		}
	}()
	waitPods(t, fc, 4, "agent:v1")
	// The pods are there once the creates return; the sync that made
	// them reports just after.
	for deadline := time.Now().Add(budget); replicas[0].syncs.Load()+replicas[1].syncs.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	lease, err := fc.CoordinationV1().Leases("kube-system").Get(context.Background(), "daemonplan-controller", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("no Lease kube-system/daemonplan-controller: %v", err)
	}
	leader, standby := replicas[0], replicas[1]
	if leader.syncs.Load() == 0 {
		leader, standby = standby, leader
	}
	if leader.syncs.Load() == 0 || standby.syncs.Load() != 0 {
		t.Fatalf("syncs by replica: %d and %d, want one replica only (the lease holder %s)",
			replicas[0].syncs.Load(), replicas[1].syncs.Load(), *lease.Spec.HolderIdentity)
	}

	leader.cancel()
	if err := <-leader.done; err != nil {
		t.Errorf("the leader, stopped: %v", err)
	}
	stoppedAt := leader.syncs.Load()
	ds, err := fc.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds.Spec.Template.Spec.Containers[0].Image = "agent:v2"
	ds.Generation++
	if _, err := fc.AppsV1().DaemonSets("default").Update(context.Background(), ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPods(t, fc, 4, "agent:v2")
	if standby.syncs.Load() == 0 || leader.syncs.Load() != stoppedAt {
		t.Errorf("after the leader stopped: %d syncs by the standby, %d more by the stopped leader; want some and none",
			standby.syncs.Load(), leader.syncs.Load()-stoppedAt)
	}
	after, err := fc.CoordinationV1().Leases("kube-system").Get(context.Background(), "daemonplan-controller", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *after.Spec.HolderIdentity == *lease.Spec.HolderIdentity {
		t.Errorf("the lease is still held by %s, the stopped leader", *after.Spec.HolderIdentity)
	}
}
