package revision

import (
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/api"
)

const (
	testNS  = "default"
	testUID = "uid-agent"
)

// testDS is the DaemonSet "agent" whose template content is data.
func testDS(data string, mods ...func(*api.DaemonSet)) *api.DaemonSet {
	ds := &api.DaemonSet{
		Namespace:    testNS,
		Name:         "agent",
		UID:          testUID,
		Annotations:  map[string]string{api.AnnotationChangeCause: "edit " + data},
		Selector:     &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template:     api.PodTemplate{Labels: map[string]string{"app": "agent"}},
		TemplateData: []byte(data),
	}
	for _, m := range mods {
		m(ds)
	}
	return ds
}

// testHash names revisions after their data, so that tables stay readable:
// data "v2" gives "v2", and "v2-c3" with collision count 3.
func testHash(ds *api.DaemonSet, cc *int32) string {
	h := string(TemplateData(ds))
	if cc != nil {
		h += "-c" + strconv.Itoa(int(*cc))
	}
	return h
}

var testOpts = Options{Hash: testHash}

func dsRef() *api.OwnerRef {
	return &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: testUID}
}

// rev is a revision of "agent" named agent-<hash>, owned by the DaemonSet,
// selected by it, with the hash label <hash>.
func rev(name string, number int64, data string, mods ...func(*Revision)) Revision {
	r := Revision{
		Namespace: testNS,
		Name:      name,
		Labels: map[string]string{
			"app":                 "agent",
			api.LabelRevisionHash: strings.TrimPrefix(name, "agent-"),
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

func legacy(r *Revision) { delete(r.Labels, api.LabelRevisionHash) }

func deleting(r *Revision) { r.Deleting = true }

func ownedBy(uid string) func(*Revision) {
	return func(r *Revision) { r.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: uid} }
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
	return func(r *Revision) { r.Labels[api.LabelRevisionHash] = h }
}

func changeCause(c string) func(*Revision) {
	return func(r *Revision) {
		r.Annotations = map[string]string{api.AnnotationChangeCause: c}
	}
}

// pod is a claimed pod of "agent" labelled with hash ("" for none).
func pod(name, hash string) api.Pod {
	p := api.Pod{
		Namespace:  testNS,
		Name:       name,
		Labels:     map[string]string{"app": "agent"},
		Controller: dsRef(),
		Phase:      api.PodRunning,
	}
	if hash != "" {
		p.Labels[api.LabelRevisionHash] = hash
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
		out[i] = rs[i].DeepCopy()
	}
	return out
}

func clonePods(ps []api.Pod) []api.Pod {
	if ps == nil {
		return nil
	}
	out := make([]api.Pod, len(ps))
	for i, p := range ps {
		p.Labels = maps.Clone(p.Labels)
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
func podPtrs(ps []api.Pod) []*api.Pod {
	out := make([]*api.Pod, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}
