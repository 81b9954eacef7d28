package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strconv"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var baseTemplateJSON = `{"metadata":{"labels":{"app":"gen-agent"}},"spec":{"containers":[{"name":"agent","image":"registry.example.com/agent:v1","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}}`

func generate(r *rand.Rand) *cluster {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	ds := &apps.DaemonSet{}
	ds.Name = "gen-agent"
	ds.Namespace = []string{"default", "kube-system"}[r.Intn(2)]
	ds.UID = newUID("ds")
	ds.CreationTimestamp = metav1.NewTime(now.Add(-30 * 24 * time.Hour))
	ds.Labels = map[string]string{"app": "gen-agent"}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gen-agent"}}
	if err := json.Unmarshal([]byte(baseTemplateJSON), &ds.Spec.Template); err != nil {
		panic(err)
	}
	if r.Intn(2) == 0 {
		ds.Spec.Template.Labels["tier"] = "node"
	}
	switch r.Intn(4) {
	case 0:
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	case 1:
		ds.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "pool", Operator: v1.NodeSelectorOpIn, Values: []string{"general", "batch"}}}}},
		}}}
	}
	if r.Intn(2) == 0 {
		ds.Spec.Template.Spec.Tolerations = []v1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	}
	if r.Intn(3) == 0 {
		ds.Spec.UpdateStrategy = apps.DaemonSetUpdateStrategy{Type: apps.OnDeleteDaemonSetStrategyType}
	} else {
		ds.Spec.UpdateStrategy = apps.DaemonSetUpdateStrategy{Type: apps.RollingUpdateDaemonSetStrategyType, RollingUpdate: &apps.RollingUpdateDaemonSet{MaxUnavailable: intOrStr(r), MaxSurge: intOrStr(r)}}
	}
	lim := []int32{0, 1, 2, 10}[r.Intn(4)]
	ds.Spec.RevisionHistoryLimit = &lim
	ds.Spec.MinReadySeconds = []int32{0, 0, 10, 60, 300}[r.Intn(5)]
	if r.Intn(4) == 0 {
		cc := int32(r.Intn(2))
		ds.Status.CollisionCount = &cc
	}
	// History of revisions: k templates.
	k := 1 + r.Intn(3)
	type hist struct {
		hash string
		gen  string
	}
	var hs []hist
	c := &cluster{Now: now}
	for i := 1; i <= k; i++ {
		ds.Spec.Template.Spec.Containers[0].Image = fmt.Sprintf("registry.example.com/agent:v%d", i)
		ds.Generation = int64(i)
		ds.Annotations = map[string]string{apps.DeprecatedTemplateGeneration: strconv.Itoa(i)}
		h := currentHash(ds)
		hs = append(hs, hist{h, strconv.Itoa(i)})
		if i < k || r.Intn(5) > 0 {
			rv := revisionFor(ds, int64(i), h)
			rv.CreationTimestamp = metav1.NewTime(now.Add(-time.Duration(k-i+1) * time.Hour))
			c.Revisions = append(c.Revisions, rv)
		}
	}
	ds.Status.ObservedGeneration = ds.Generation - int64(r.Intn(2))
	c.DS = ds
	nn := r.Intn(9)
	if r.Intn(25) == 0 {
		nn = 240 + r.Intn(40)
	}
	for i := 0; i < nn; i++ {
		n := &v1.Node{}
		n.Name = fmt.Sprintf("node-%03d", i)
		n.UID = newUID("node")
		n.CreationTimestamp = metav1.NewTime(now.Add(-40 * 24 * time.Hour))
		n.Labels = map[string]string{"kubernetes.io/hostname": n.Name, "kubernetes.io/os": []string{"linux", "linux", "windows"}[r.Intn(3)], "pool": []string{"general", "batch", "gpu"}[r.Intn(3)]}
		st := v1.ConditionTrue
		if r.Intn(5) == 0 {
			st = v1.ConditionFalse
			tm := metav1.NewTime(now.Add(-5 * time.Minute))
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "node.kubernetes.io/not-ready", Effect: v1.TaintEffectNoExecute, TimeAdded: &tm})
		}
		if r.Intn(6) == 0 {
			n.Spec.Unschedulable = true
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: v1.TaintEffectNoSchedule})
		}
		if r.Intn(6) == 0 {
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: wellKnownTaints[r.Intn(len(wellKnownTaints))], Effect: effects[r.Intn(3)]})
		}
		n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: st}}
		c.Nodes = append(c.Nodes, n)
		// pods on this node
		np := r.Intn(3)
		if r.Intn(3) == 0 {
			np = 1
		}
		for j := 0; j < np; j++ {
			h := hs[r.Intn(len(hs))]
			created := now.Add(-time.Duration(r.Intn(7200)) * time.Second)
			p := podFor(r, ds, n.Name, h.hash, h.gen, created)
			if r.Intn(10) == 0 {
				p.Status.Phase = v1.PodFailed
				setReady(p, false, created)
			}
			c.Pods = append(c.Pods, p)
		}
	}
	c.Now = now.Add(time.Duration(r.Intn(600)) * time.Second)
	return c
}
