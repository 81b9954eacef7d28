package apply_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/load"
)

func podNamed(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
}

// terminating returns a snapshot holding the named pods, each with a
// deletionTimestamp.
func terminating(names ...string) *load.Snapshot {
	c := snapshotWith(names...)
	for _, p := range c.Pods {
		ts := metav1.NewTime(now)
		p.DeletionTimestamp = &ts
	}
	return c
}

func snapshotWith(names ...string) *load.Snapshot {
	c := &load.Snapshot{}
	for _, n := range names {
		c.Pods = append(c.Pods, podNamed(n))
	}
	return c
}

func TestExpectations(t *testing.T) {
	created := apply.Result{Created: []*corev1.Pod{podNamed("agent-new")}}
	deleted := apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "agent-old"}}}
	failed := apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "agent-old", Err: errors.New("conflict")}}}
	tests := []struct {
		name    string
		reason  string
		applied apply.Result
		deleted string // an informer delete event before the snapshot
		seen    *load.Snapshot
		after   time.Duration
		ttl     time.Duration
		pending bool
	}{
		{"nothing applied", "the zero value expects nothing", apply.Result{}, "", snapshotWith(), 0, 0, false},
		{"create unseen", "the informers have not shown the new pod", created, "", snapshotWith("agent-old"), time.Second, 0, true},
		{"create seen", "the snapshot holds the new pod", created, "", snapshotWith("agent-new"), time.Second, 0, false},
		{"delete unseen", "the snapshot still holds the deleted pod", deleted, "", snapshotWith("agent-old"), time.Second, 0, true},
		{"delete seen", "the snapshot lacks the deleted pod", deleted, "", snapshotWith(), time.Second, 0, false},
		{"delete seen terminating", "the deleted pod has a deletionTimestamp: upstream counts the delete observed then, not when the pod is gone", deleted, "", terminating("agent-old"), time.Second, 0, false},
		{"create seen terminating", "a created pod shown already terminating was created", created, "", terminating("agent-new"), time.Second, 0, false},
		{"other pod terminating", "another pod's deletionTimestamp does not show the delete", deleted, "", &load.Snapshot{Pods: append(snapshotWith("agent-old").Pods, terminating("agent-x").Pods...)}, time.Second, 0, true},
		{"failed delete", "a refused delete will never show; nothing is expected", failed, "", snapshotWith("agent-old"), time.Second, 0, false},
		{"delete event", "an informer delete event forgets the pod, whatever the lister shows", deleted, "agent-old", snapshotWith("agent-old"), time.Second, 0, false},
		{"created then deleted", "a delete event of a pod expected as created means it was seen", created, "agent-new", snapshotWith(), time.Second, 0, false},
		{"default TTL not reached", "unseen writes are expected for five minutes", created, "", snapshotWith(), apply.DefaultExpectationsTTL - time.Second, 0, true},
		{"default TTL reached", "after five minutes an unseen write is given up", created, "", snapshotWith(), apply.DefaultExpectationsTTL, 0, false},
		{"own TTL", "a TTL of its own replaces the default", deleted, "", snapshotWith("agent-old"), 10 * time.Second, 10 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &apply.Expectations{TTL: tt.ttl}
			e.Expect(tt.applied, now)
			if tt.deleted != "" {
				e.Deleted(tt.deleted)
			}
			if got := e.Pending(tt.seen, now.Add(tt.after)); got != tt.pending {
				t.Errorf("Pending = %v, want %v (%s)", got, tt.pending, tt.reason)
			}
		})
	}
}

// TestExpectationsForgetOnceSeen: a write seen once is forgotten, so that a
// later snapshot in which the pod is gone again (deleted by someone else)
// does not make it pending again.
func TestExpectationsForgetOnceSeen(t *testing.T) {
	var e apply.Expectations
	e.Expect(apply.Result{Created: []*corev1.Pod{podNamed("agent-new")}}, now)
	if e.Pending(snapshotWith("agent-new"), now) {
		t.Fatal("pending although the snapshot holds the created pod")
	}
	if e.Pending(snapshotWith(), now) {
		t.Error("pending again after the created pod was seen once")
	}
}

// TestExpectationsConcurrent runs informer delete events against the sync
// loop's calls, for the race detector.
func TestExpectationsConcurrent(t *testing.T) {
	var e apply.Expectations
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 100 {
			e.Expect(apply.Result{Created: []*corev1.Pod{podNamed("p")}}, now)
			e.Pending(snapshotWith(), now)
		}
	}()
	go func() {
		defer wg.Done()
		for range 100 {
			e.Deleted("p")
		}
	}()
	wg.Wait()
}

// TestPendingForIsPending: PendingFor, which looks up the expected pods by
// name, reports and forgets exactly what Pending does on a snapshot
// holding the same pods, whatever was created and deleted, whatever the
// snapshot holds (absent, present, terminating) and however late.
func TestPendingForIsPending(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := []string{"a", "b", "c", "d"}
		var byScan, byName apply.Expectations
		for range rapid.IntRange(1, 4).Draw(t, "syncs") {
			var res apply.Result
			at := now.Add(time.Duration(rapid.IntRange(0, 400).Draw(t, "at")) * time.Second)
			for _, n := range names {
				switch rapid.IntRange(0, 2).Draw(t, "write "+n) {
				case 1:
					res.Created = append(res.Created, podNamed(n))
				case 2:
					res.Writes = append(res.Writes, apply.Write{Action: apply.DeletePod, Name: n})
				}
			}
			byScan.Expect(res, at)
			byName.Expect(res, at)
			c := &load.Snapshot{}
			for _, n := range names {
				switch rapid.IntRange(0, 2).Draw(t, "holds "+n) {
				case 1:
					c.Pods = append(c.Pods, podNamed(n))
				case 2:
					p := podNamed(n)
					ts := metav1.NewTime(now)
					p.DeletionTimestamp = &ts
					c.Pods = append(c.Pods, p)
				}
			}
			lookup := func(name string) *corev1.Pod {
				for _, p := range c.Pods {
					if p.Name == name {
						return p
					}
				}
				return nil
			}
			check := at.Add(time.Duration(rapid.IntRange(0, 400).Draw(t, "check")) * time.Second)
			if a, b := byScan.Pending(c, check), byName.PendingFor(lookup, check); a != b {
				t.Fatalf("Pending = %v, PendingFor = %v", a, b)
			}
		}
	})
}
