package revision

import (
	"strconv"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/selector"
)

const (
	testNS  = "default"
	testUID = "uid-agent"
)

// testDS is the DaemonSet "agent" whose template content is data.
func testDS(data string, mods ...func(*placement.DaemonSet)) *placement.DaemonSet {
	ds := &placement.DaemonSet{
		Namespace:    testNS,
		Name:         "agent",
		UID:          testUID,
		Annotations:  map[string]string{placement.AnnotationChangeCause: "edit " + data},
		Selector:     &selector.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template:     placement.PodTemplate{Labels: map[string]string{"app": "agent"}},
		TemplateData: []byte(data),
	}
	for _, m := range mods {
		m(ds)
	}
	return ds
}

// testHash names revisions after their data, so that tables stay readable:
// data "v2" gives "v2", and "v2-c3" with collision count 3.
func testHash(ds *placement.DaemonSet, cc *int32) string {
	h := string(TemplateData(ds))
	if cc != nil {
		h += "-c" + strconv.Itoa(int(*cc))
	}
	return h
}

var testOpts = Options{Hash: testHash}

func dsRef() *placement.OwnerRef {
	return &placement.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: testUID}
}

// rev is a revision of "agent" named agent-<hash>, owned by the DaemonSet,
// selected by it, with the hash label <hash>.
func rev(name string, number int64, data string, mods ...func(*Revision)) Revision {
	r := Revision{
		Namespace: testNS,
		Name:      name,
		Labels: map[string]string{
			"app":                       "agent",
			placement.LabelRevisionHash: strings.TrimPrefix(name, "agent-"),
		},
		Controller: dsRef(),
		Revision:   number,
		Data:       []byte(data),
	}
	for _, m := range mods {
		m(&r)
	}
	return r
}

func orphan(r *Revision) { r.Controller = nil }

func legacy(r *Revision) { delete(r.Labels, placement.LabelRevisionHash) }

func deleting(r *Revision) { r.Deleting = true }

func ownedBy(uid string) func(*Revision) {
	return func(r *Revision) { r.Controller = &placement.OwnerRef{Kind: "DaemonSet", Name: "other", UID: uid} }
}

func inNamespace(ns string) func(*Revision) {
	return func(r *Revision) { r.Namespace = ns }
}

func withLabels(kv ...string) func(*Revision) {
	return func(r *Revision) {
		r.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			r.Labels[kv[i]] = kv[i+1]
		}
	}
}

func hashLabel(h string) func(*Revision) {
	return func(r *Revision) { r.Labels[placement.LabelRevisionHash] = h }
}

func changeCause(c string) func(*Revision) {
	return func(r *Revision) {
		r.Annotations = map[string]string{placement.AnnotationChangeCause: c}
	}
}

// pod is a claimed pod of "agent" labelled with hash ("" for none).
func pod(name, hash string) placement.Pod {
	p := placement.Pod{
		Namespace:  testNS,
		Name:       name,
		Labels:     map[string]string{"app": "agent"},
		Controller: dsRef(),
		Phase:      placement.PodRunning,
	}
	if hash != "" {
		p.Labels[placement.LabelRevisionHash] = hash
	}
	return p
}

func int32p(n int32) *int32 { return &n }

func cloneAll(rs []Revision) []Revision {
	if rs == nil {
		return nil
	}
	out := make([]Revision, len(rs))
	for i := range rs {
		out[i] = cloneRevision(rs[i])
	}
	return out
}

func clonePods(ps []placement.Pod) []placement.Pod {
	if ps == nil {
		return nil
	}
	out := make([]placement.Pod, len(ps))
	for i, p := range ps {
		p.Labels = copyMap(p.Labels)
		if p.Controller != nil {
			c := *p.Controller
			p.Controller = &c
		}
		out[i] = p
	}
	return out
}

// mustNoError stops the test on an unexpected error (testify cannot be
// used: go.sum lacks its dependencies).
func mustNoError(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// podPtrs points into ps, as the planner passes its claimed pods.
func podPtrs(ps []placement.Pod) []*placement.Pod {
	out := make([]*placement.Pod, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}
