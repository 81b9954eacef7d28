// The clusters fuzz compares on: mutations of a cluster (mutate) and
// clusters made from scratch (generate).

package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/daemon"
	"k8s.io/kubernetes/pkg/controller/daemon/util"

	"github.com/daemonplan/daemonplan/api"
)

// wellKnownTaints are the taint keys mutations use: the ones the controller
// adds tolerations for, and a few it does not.
var wellKnownTaints = []string{
	"node.kubernetes.io/unschedulable", "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable",
	"node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure", "node.kubernetes.io/pid-pressure",
	"node.kubernetes.io/network-unavailable", "node-role.kubernetes.io/control-plane", "dedicated", "example.com/quarantine",
	"node.cloudprovider.kubernetes.io/uninitialized",
}
var effects = []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectNoExecute, v1.TaintEffectPreferNoSchedule}

// newUID draws a UID from r, so that a cluster depends only on its seed and
// index and can be made again alone.
func newUID(r *rand.Rand, prefix string) types.UID {
	return types.UID(fmt.Sprintf("%s-fz-%08x", prefix, r.Uint32()))
}

// removeRandom removes a random element of *xs and returns it; false when
// there is none.
func removeRandom[T any](r *rand.Rand, xs *[]T) (T, bool) {
	var x T
	if len(*xs) == 0 {
		return x, false
	}
	i := r.Intn(len(*xs))
	x = (*xs)[i]
	*xs = slices.Delete(*xs, i, i+1)
	return x, true
}

// randName is a name as generateName makes one.
func randName(r *rand.Rand, prefix string) string {
	const al = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = al[r.Intn(len(al))]
	}
	return prefix + string(b)
}

func intOrStr(r *rand.Rand) *intstr.IntOrString {
	opts := []intstr.IntOrString{intstr.FromInt32(0), intstr.FromInt32(1), intstr.FromInt32(2), intstr.FromInt32(3),
		intstr.FromString("0%"), intstr.FromString("10%"), intstr.FromString("25%"), intstr.FromString("50%"), intstr.FromString("100%"), intstr.FromString("33%")}
	v := opts[r.Intn(len(opts))]
	return &v
}

func setReady(p *v1.Pod, ready bool, ltt time.Time) {
	st := v1.ConditionFalse
	if ready {
		st = v1.ConditionTrue
	}
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == v1.PodReady {
			p.Status.Conditions[i].Status = st
			p.Status.Conditions[i].LastTransitionTime = metav1.NewTime(ltt)
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodReady, Status: st, LastTransitionTime: metav1.NewTime(ltt)})
}

func readyLTT(p *v1.Pod) (time.Time, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady && c.Status == v1.ConditionTrue {
			return c.LastTransitionTime.Time, true
		}
	}
	return time.Time{}, false
}

// templateChanged applies what the API server does on a template change.
func templateChanged(ds *apps.DaemonSet) { bumpGenerations(ds, api.TemplateChanged) }

// specChanged applies what the API server does on a change of the spec
// outside the template.
func specChanged(ds *apps.DaemonSet) { bumpGenerations(ds, api.SpecChanged) }

// bumpGenerations numbers ds's generations after an update that makes
// change as daemonplan's simulators do, with the API server's rule
// (api.BumpGenerations; docs/validation.md, V13). Its annotations become a
// copy.
func bumpGenerations(ds *apps.DaemonSet, change api.SpecChange) {
	b := api.BumpGenerations(&api.DaemonSet{Generation: ds.Generation, Annotations: ds.Annotations}, change)
	ds.Generation, ds.Annotations = b.Generation, b.Annotations
}

// currentHash is upstream's hash of ds's template. It hashes what an API
// server would store, the object after a JSON round trip: a quantity built in
// memory hashes differently from the same quantity decoded.
func currentHash(ds *apps.DaemonSet) string {
	b, err := json.Marshal(ds)
	if err != nil {
		panic("updiff: currentHash: " + err.Error()) // unreachable: a typed object
	}
	var rt apps.DaemonSet
	if err := json.Unmarshal(b, &rt); err != nil {
		panic("updiff: currentHash: " + err.Error()) // unreachable: what Marshal wrote
	}
	return controller.ComputeHash(&rt.Spec.Template, rt.Status.CollisionCount)
}

// revisionFor is the ControllerRevision upstream would have made for ds's
// template (its data from upstream's own encoding), named after hash.
func revisionFor(r *rand.Rand, ds *apps.DaemonSet, rev int64, hash string) *apps.ControllerRevision {
	patch, _ := daemon.UpdiffGetPatch(ds)
	labels := map[string]string{}
	for k, v := range ds.Spec.Template.Labels {
		labels[k] = v
	}
	labels[apps.DefaultDaemonSetUniqueLabelKey] = hash
	return &apps.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace, UID: newUID(r, "cr"), Labels: labels,
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(ds, apps.SchemeGroupVersion.WithKind("DaemonSet"))},
			CreationTimestamp: ds.CreationTimestamp,
		},
		Data: runtime.RawExtension{Raw: patch}, Revision: rev,
	}
}

// podFor is a running daemon pod of ds on node as upstream would have
// created it (its tolerations and node affinity from upstream's helpers,
// the defaults an API server adds), bound, and ready three times in four.
func podFor(r *rand.Rand, ds *apps.DaemonSet, node, hash, gen string, created time.Time) *v1.Pod {
	t := ds.Spec.Template.DeepCopy()
	labels := map[string]string{}
	for k, v := range t.Labels {
		labels[k] = v
	}
	if hash != "" {
		labels[apps.DefaultDaemonSetUniqueLabelKey] = hash
	}
	if gen != "" {
		labels["pod-template-generation"] = gen
	}
	spec := t.Spec
	util.AddOrUpdateDaemonPodTolerations(&spec)
	spec.Affinity = util.ReplaceDaemonSetPodNodeNameNodeAffinity(spec.Affinity, node)
	spec.NodeName = node
	if spec.Priority == nil {
		var z int32
		spec.Priority = &z
	}
	if spec.EnableServiceLinks == nil {
		b := true
		spec.EnableServiceLinks = &b
	}
	if spec.PreemptionPolicy == nil {
		pp := v1.PreemptLowerPriority
		spec.PreemptionPolicy = &pp
	}
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: randName(r, ds.Name+"-"), GenerateName: ds.Name + "-", Namespace: ds.Namespace, UID: newUID(r, "pod"),
			CreationTimestamp: metav1.NewTime(created), Labels: labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, apps.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Spec:   spec,
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
	ready := r.Intn(4) != 0
	setReady(p, ready, created.Add(time.Duration(r.Intn(600))*time.Second))
	return p
}

// mutate changes c in one random way, as an API server could hold it, and
// names the change. With exotic, half the changes set a rarely used PodSpec
// or Container field instead.
func mutate(r *rand.Rand, c *cluster, exotic bool) string {
	ds := c.DS
	pickPod := func() *v1.Pod {
		if len(c.Pods) == 0 {
			return nil
		}
		return c.Pods[r.Intn(len(c.Pods))]
	}
	pickNode := func() *v1.Node {
		if len(c.Nodes) == 0 {
			return nil
		}
		return c.Nodes[r.Intn(len(c.Nodes))]
	}
	if exotic && r.Intn(2) == 0 {
		return exoticField(r, c.DS)
	}
	if r.Intn(3) == 0 {
		return mutateDeep(r, c)
	}
	switch r.Intn(34) {
	case 0:
		d := time.Duration(r.Intn(7200)-3600) * time.Second
		c.Now = c.Now.Add(d)
		return fmt.Sprintf("now%+ds", int(d.Seconds()))
	case 1: // now exactly at an availability boundary of some ready pod
		if p := pickPod(); p != nil {
			if t, ok := readyLTT(p); ok {
				off := r.Intn(3) - 1
				c.Now = t.Add(time.Duration(ds.Spec.MinReadySeconds)*time.Second + time.Duration(off)*time.Second)
				return fmt.Sprintf("now=boundary(%s)%+d", p.Name, off)
			}
		}
		return "noop"
	case 2:
		if p := pickPod(); p != nil {
			_, ok := readyLTT(p)
			setReady(p, !ok, c.Now.Add(-time.Duration(r.Intn(400))*time.Second))
			return "flipReady " + p.Name
		}
	case 3:
		if p := pickPod(); p != nil {
			p.Status.Phase = []v1.PodPhase{v1.PodFailed, v1.PodSucceeded, v1.PodPending, v1.PodUnknown}[r.Intn(4)]
			if p.Status.Phase != v1.PodPending {
				setReady(p, false, c.Now.Add(-10*time.Second))
			}
			return "phase " + p.Name + "=" + string(p.Status.Phase)
		}
	case 4:
		if p := pickPod(); p != nil {
			t := metav1.NewTime(c.Now.Add(-time.Duration(r.Intn(100)) * time.Second))
			p.DeletionTimestamp = &t
			g := int64(30)
			p.DeletionGracePeriodSeconds = &g
			if r.Intn(2) == 0 {
				p.Status.Phase = v1.PodFailed
			}
			return "terminating " + p.Name
		}
	case 5:
		if n, ok := removeRandom(r, &c.Nodes); ok {
			return "delNode " + n.Name
		}
	case 6:
		if n := pickNode(); n != nil {
			m := n.DeepCopy()
			m.Name = fmt.Sprintf("node-fz-%03d", r.Intn(1000))
			m.UID = newUID(r, "node")
			if m.Labels != nil {
				m.Labels["kubernetes.io/hostname"] = m.Name
			}
			for _, o := range c.Nodes {
				if o.Name == m.Name {
					return "noop"
				}
			}
			c.Nodes = append(c.Nodes, m)
			return "addNode " + m.Name
		}
	case 7, 8:
		if n := pickNode(); n != nil {
			t := v1.Taint{Key: wellKnownTaints[r.Intn(len(wellKnownTaints))], Effect: effects[r.Intn(3)]}
			if t.Key == "dedicated" {
				t.Value = []string{"infra", "gpu"}[r.Intn(2)]
			}
			if t.Effect == v1.TaintEffectNoExecute {
				tm := metav1.NewTime(c.Now.Add(-time.Minute))
				t.TimeAdded = &tm
			}
			n.Spec.Taints = append(n.Spec.Taints, t)
			return "taint " + n.Name + " " + t.ToString()
		}
	case 9:
		if n := pickNode(); n != nil {
			if _, ok := removeRandom(r, &n.Spec.Taints); ok {
				return "untaint " + n.Name
			}
		}
	case 10:
		if n := pickNode(); n != nil {
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			keys := []string{"pool", "topology.kubernetes.io/zone", "gen", "kubernetes.io/os", "node-role.kubernetes.io/control-plane"}
			k := keys[r.Intn(len(keys))]
			vals := []string{"", "general", "batch", "zone-a", "zone-b", "1", "4", "linux", "windows"}
			if r.Intn(4) == 0 {
				delete(n.Labels, k)
				return "unlabel " + n.Name + " " + k
			}
			n.Labels[k] = vals[r.Intn(len(vals))]
			return "label " + n.Name + " " + k
		}
	case 11:
		ds.Spec.UpdateStrategy = apps.DaemonSetUpdateStrategy{Type: apps.OnDeleteDaemonSetStrategyType}
		specChanged(ds)
		return "OnDelete"
	case 12, 13:
		ru := &apps.RollingUpdateDaemonSet{MaxUnavailable: intOrStr(r), MaxSurge: intOrStr(r)}
		ds.Spec.UpdateStrategy = apps.DaemonSetUpdateStrategy{Type: apps.RollingUpdateDaemonSetStrategyType, RollingUpdate: ru}
		if r.Intn(3) > 0 { // else a spec the controller has not observed yet
			specChanged(ds)
		}
		return fmt.Sprintf("rolling mu=%s ms=%s", ru.MaxUnavailable.String(), ru.MaxSurge.String())
	case 14:
		ds.Spec.MinReadySeconds = []int32{0, 5, 30, 60, 300, 3600}[r.Intn(6)]
		specChanged(ds)
		return fmt.Sprintf("minReady=%d", ds.Spec.MinReadySeconds)
	case 15:
		if ds.Annotations == nil {
			ds.Annotations = map[string]string{}
		}
		switch r.Intn(3) {
		case 0:
			delete(ds.Annotations, apps.DeprecatedTemplateGeneration)
			return "dropTemplateGeneration"
		case 1:
			ds.Annotations[apps.DeprecatedTemplateGeneration] = strconv.Itoa(r.Intn(6))
			return "templateGeneration=" + ds.Annotations[apps.DeprecatedTemplateGeneration]
		default:
			if p := pickPod(); p != nil {
				p.Labels["pod-template-generation"] = strconv.Itoa(r.Intn(6))
				return "podGen " + p.Name
			}
		}
	case 16, 17: // template change -> new hash
		cs := ds.Spec.Template.Spec.Containers
		if len(cs) > 0 {
			cs[0].Image = fmt.Sprintf("registry.example.com/agent:v9.%d", r.Intn(1000))
		}
		templateChanged(ds)
		return "newTemplate"
	case 18:
		if rv, ok := removeRandom(r, &c.Revisions); ok {
			return "dropRevision " + rv.Name
		}
	case 19: // duplicate current revision (equal data, other name)
		h := currentHash(ds)
		rv := revisionFor(r, ds, int64(20+r.Intn(80)), "dup"+h[:4])
		rv.Name = ds.Name + "-dup" + strconv.Itoa(r.Intn(100))
		if r.Intn(2) == 0 {
			delete(rv.Labels, apps.DefaultDaemonSetUniqueLabelKey)
		}
		c.Revisions = append(c.Revisions, rv)
		return "dupRevision " + rv.Name
	case 20: // colliding name: a revision named after the current hash with other data
		h := currentHash(ds)
		for _, rv := range c.Revisions {
			if rv.Name == ds.Name+"-"+h {
				return "noop"
			}
		}
		o := ds.DeepCopy()
		if len(o.Spec.Template.Spec.Containers) > 0 {
			o.Spec.Template.Spec.Containers[0].Image = "other:collide"
		}
		rv := revisionFor(r, o, int64(r.Intn(5)), h)
		c.Revisions = append(c.Revisions, rv)
		return "collidingRevision " + rv.Name
	case 21:
		if p := pickPod(); p != nil {
			p.OwnerReferences = nil
			return "orphanPod " + p.Name
		}
	case 22:
		if len(c.Revisions) > 0 {
			rv := c.Revisions[r.Intn(len(c.Revisions))]
			rv.OwnerReferences = nil
			return "orphanRevision " + rv.Name
		}
	case 23:
		if p := pickPod(); p != nil {
			t := true
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "other", UID: "rs-other", Controller: &t}}
			return "otherOwner " + p.Name
		}
	case 24:
		if p := pickPod(); p != nil {
			for k := range ds.Spec.Selector.MatchLabels {
				p.Labels[k] = "something-else"
			}
			return "unmatchLabels " + p.Name
		}
	case 25:
		t := metav1.NewTime(c.Now.Add(-time.Minute))
		ds.DeletionTimestamp = &t
		ds.Finalizers = []string{"foregroundDeletion"}
		return "dsDeleting"
	case 26:
		l := []int32{0, 1, 2}[r.Intn(3)]
		ds.Spec.RevisionHistoryLimit = &l
		return fmt.Sprintf("historyLimit=%d", l)
	case 27:
		cc := int32(r.Intn(3))
		ds.Status.CollisionCount = &cc
		return fmt.Sprintf("collisionCount=%d", cc)
	case 28:
		if p := pickPod(); p != nil {
			node := fmt.Sprintf("node-gone-%d", r.Intn(3))
			p.Spec.NodeName = node
			p.Spec.Affinity = util.ReplaceDaemonSetPodNodeNameNodeAffinity(p.Spec.Affinity, node)
			if r.Intn(2) == 0 {
				p.Spec.NodeName = ""
			}
			return "podOnGoneNode " + p.Name
		}
	case 29:
		if p := pickPod(); p != nil {
			q := p.DeepCopy()
			q.Name = randName(r, ds.Name+"-")
			q.UID = newUID(r, "pod")
			q.CreationTimestamp = metav1.NewTime(p.CreationTimestamp.Add(time.Duration(r.Intn(7200)-3600) * time.Second))
			if r.Intn(2) == 0 {
				q.Labels[apps.DefaultDaemonSetUniqueLabelKey] = currentHash(ds)
			}
			setReady(q, r.Intn(2) == 0, q.CreationTimestamp.Add(time.Duration(r.Intn(300))*time.Second))
			c.Pods = append(c.Pods, q)
			return "dupPod " + q.Name
		}
	case 30:
		if p := pickPod(); p != nil {
			p.Spec.NodeName = ""
			p.Status.Phase = v1.PodPending
			setReady(p, false, p.CreationTimestamp.Time)
			return "unscheduled " + p.Name
		}
	case 31:
		if len(c.Revisions) > 0 {
			rv := c.Revisions[r.Intn(len(c.Revisions))]
			delete(rv.Labels, apps.DefaultDaemonSetUniqueLabelKey)
			return "revNoHashLabel " + rv.Name
		}
	case 32:
		if p := pickPod(); p != nil {
			if r.Intn(2) == 0 {
				delete(p.Labels, apps.DefaultDaemonSetUniqueLabelKey)
			} else {
				p.Labels[apps.DefaultDaemonSetUniqueLabelKey] = currentHash(ds)
			}
			return "podHash " + p.Name
		}
	case 33: // template tolerations change
		tols := []v1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
			{Key: "node.kubernetes.io/unschedulable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
			{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "infra", Effect: v1.TaintEffectNoSchedule},
			{Operator: v1.TolerationOpExists},
			{Key: "node.kubernetes.io/unreachable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr64(300)},
			{Key: "example.com/quarantine", Operator: v1.TolerationOpExists},
			{Key: "node.kubernetes.io/memory-pressure", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		}
		ds.Spec.Template.Spec.Tolerations = append(ds.Spec.Template.Spec.Tolerations, tols[r.Intn(len(tols))])
		templateChanged(ds)
		return "addToleration"
	}
	return "noop"
}

func ptr64(v int64) *int64 { return &v }

// quantities are resource quantity spellings, some with more than one form
// for one value, which the revision hash and data must keep apart.
var quantities = []string{"0", "1", "100m", "250m", "500m", "0.5", "1.5", "2", "1000m", "64Mi", "128Mi", "1Gi", "1G", "1e3", "1.5Gi", "512M", "10k", "1Ki", "0.1", "3.14159", "12345678901", "1m", "999m", "2000000n", "1u"}

func randQ(r *rand.Rand) resource.Quantity {
	return resource.MustParse(quantities[r.Intn(len(quantities))])
}

var nodeLabelKeys = []string{"pool", "topology.kubernetes.io/zone", "gen", "kubernetes.io/os", "cpu-count", "node-role.kubernetes.io/control-plane", "kubernetes.io/hostname"}
var nodeLabelVals = []string{"general", "batch", "zone-a", "zone-b", "1", "2", "4", "32", "linux", "", "node-001", "gpu"}

func randReq(r *rand.Rand) v1.NodeSelectorRequirement {
	ops := []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn, v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist, v1.NodeSelectorOpGt, v1.NodeSelectorOpLt}
	req := v1.NodeSelectorRequirement{Key: nodeLabelKeys[r.Intn(len(nodeLabelKeys))], Operator: ops[r.Intn(len(ops))]}
	switch req.Operator {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
		for k := 1 + r.Intn(2); k > 0; k-- {
			req.Values = append(req.Values, nodeLabelVals[r.Intn(len(nodeLabelVals))])
		}
	case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
		req.Values = []string{[]string{"0", "2", "4", "16", "x"}[r.Intn(5)]}
	}
	return req
}

// mutateDeep is mutate's second half: template contents, ownership and
// namespaces of pods and revisions, odd budgets and selectors.
func mutateDeep(r *rand.Rand, c *cluster) string {
	ds := c.DS
	t := &ds.Spec.Template
	switch r.Intn(30) {
	case 25, 26, 27, 28, 29:
		return exoticField(r, ds)
	case 22:
		v := []int64{0, 1, 9007199254740993, 1 << 62, 2147483648}[r.Intn(5)]
		t.Spec.TerminationGracePeriodSeconds = &v
		templateChanged(ds)
		return fmt.Sprintf("tgps=%d", v)
	case 23:
		if len(t.Spec.Containers) > 0 {
			t.Spec.Containers[0].Env = append(t.Spec.Containers[0].Env, v1.EnvVar{Name: "WEIRD", Value: []string{"a<b>&c", "\u2028\u2029", "tab\tnl\n", "\"quoted\"", "emoji \U0001F600", "\x7f"}[r.Intn(6)]})
			templateChanged(ds)
			return "weirdEnv"
		}
	case 24:
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		t.Annotations["example.com/json"] = `{"a":[1,2.5e10,null],"b":"<x>"}`
		templateChanged(ds)
		return "jsonAnnotation"
	case 16:
		if len(c.Pods) > 0 {
			p := c.Pods[r.Intn(len(c.Pods))]
			p.Namespace = "other-ns"
			return "podOtherNamespace " + p.Name
		}
	case 17:
		if len(c.Pods) > 0 {
			p := c.Pods[r.Intn(len(c.Pods))]
			t := true
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: "stale-ds-uid", Controller: &t, BlockOwnerDeletion: &t}}
			return "staleOwner " + p.Name
		}
	case 18:
		if len(c.Pods) > 0 {
			p := c.Pods[r.Intn(len(c.Pods))]
			f := false
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &f}}
			if r.Intn(2) == 0 {
				p.OwnerReferences[0].Controller = nil
			}
			return "nonControllerRef " + p.Name
		}
	case 19:
		if len(c.Revisions) > 0 {
			rv := c.Revisions[r.Intn(len(c.Revisions))]
			t := true
			rv.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "other-ds", UID: "other-ds-uid", Controller: &t}}
			return "revOtherOwner " + rv.Name
		}
	case 20:
		if len(c.Revisions) > 0 {
			rv := c.Revisions[r.Intn(len(c.Revisions))]
			for k := range ds.Spec.Selector.MatchLabels {
				rv.Labels[k] = "nope"
			}
			return "revUnmatchLabels " + rv.Name
		}
	case 21:
		if len(c.Revisions) > 0 {
			rv := c.Revisions[r.Intn(len(c.Revisions))].DeepCopy()
			rv.Namespace = "other-ns"
			rv.UID = newUID(r, "cr")
			c.Revisions = append(c.Revisions, rv)
			return "revOtherNamespace " + rv.Name
		}
	case 0:
		if len(t.Spec.Containers) > 0 {
			q1, q2 := randQ(r), randQ(r)
			t.Spec.Containers[0].Resources = v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: q1, v1.ResourceMemory: q2},
				Limits:   v1.ResourceList{v1.ResourceCPU: q1, v1.ResourceMemory: q2},
			}
			templateChanged(ds)
			return "resources " + q1.String() + " " + q2.String()
		}
	case 1:
		if t.Spec.NodeSelector == nil {
			t.Spec.NodeSelector = map[string]string{}
		}
		k := nodeLabelKeys[r.Intn(len(nodeLabelKeys))]
		t.Spec.NodeSelector[k] = nodeLabelVals[r.Intn(len(nodeLabelVals))]
		templateChanged(ds)
		return "nodeSelector " + k
	case 2, 3:
		var terms []v1.NodeSelectorTerm
		for k := 1 + r.Intn(2); k > 0; k-- {
			var term v1.NodeSelectorTerm
			for j := r.Intn(3); j > 0; j-- {
				term.MatchExpressions = append(term.MatchExpressions, randReq(r))
			}
			if r.Intn(3) == 0 && len(c.Nodes) > 0 {
				op := []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn}[r.Intn(2)]
				term.MatchFields = append(term.MatchFields, v1.NodeSelectorRequirement{Key: "metadata.name", Operator: op, Values: []string{c.Nodes[r.Intn(len(c.Nodes))].Name}})
			}
			terms = append(terms, term)
		}
		t.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms}}}
		if r.Intn(3) == 0 {
			t.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.PreferredSchedulingTerm{{Weight: 10, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{randReq(r)}}}}
		}
		templateChanged(ds)
		return "affinity"
	case 4:
		if len(t.Spec.Containers) > 0 {
			t.Spec.Containers[0].Env = append(t.Spec.Containers[0].Env, v1.EnvVar{Name: fmt.Sprintf("E%d", r.Intn(10)), Value: []string{"", "x", "<&>", "ünï"}[r.Intn(4)]})
			templateChanged(ds)
			return "env"
		}
	case 5:
		if len(t.Spec.Containers) > 0 {
			t.Spec.Containers[0].Ports = append(t.Spec.Containers[0].Ports, v1.ContainerPort{Name: "metrics", ContainerPort: int32(9000 + r.Intn(100)), Protocol: v1.ProtocolTCP})
			templateChanged(ds)
			return "port"
		}
	case 6:
		t.Spec.HostNetwork = true
		t.Spec.DNSPolicy = v1.DNSClusterFirstWithHostNet
		templateChanged(ds)
		return "hostNetwork"
	case 7, 8: // comparison-operator / odd tolerations + matching node taints
		tols := []v1.Toleration{
			{Key: "example.com/level", Operator: "Gt", Value: "3", Effect: v1.TaintEffectNoSchedule},
			{Key: "example.com/level", Operator: "Lt", Value: "5"},
			{Key: "example.com/level", Operator: v1.TolerationOpEqual, Value: "4"},
			{Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
			{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists},
			{Key: "node.kubernetes.io/unschedulable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
			{Key: "node.kubernetes.io/unreachable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr64(0)},
			{Key: "node.kubernetes.io/disk-pressure", Operator: v1.TolerationOpEqual, Effect: v1.TaintEffectNoSchedule},
			{Key: "dedicated", Value: "infra", Effect: v1.TaintEffectNoSchedule},
		}
		tol := tols[r.Intn(len(tols))]
		t.Spec.Tolerations = append(t.Spec.Tolerations, tol)
		templateChanged(ds)
		if len(c.Nodes) > 0 {
			n := c.Nodes[r.Intn(len(c.Nodes))]
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "example.com/level", Value: []string{"1", "3", "4", "5", "9", "abc"}[r.Intn(6)], Effect: effects[r.Intn(3)]})
		}
		return fmt.Sprintf("toleration %+v", tol)
	case 9:
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		t.Labels[[]string{"extra", "version", "tier"}[r.Intn(3)]] = []string{"a", "b", "node"}[r.Intn(3)]
		templateChanged(ds)
		return "templateLabel"
	case 10:
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		t.Annotations["example.com/restartedAt"] = c.Now.Format(time.RFC3339)
		templateChanged(ds)
		return "templateAnnotation"
	case 11:
		if ds.Annotations == nil {
			ds.Annotations = map[string]string{}
		}
		ds.Annotations[apps.DeprecatedTemplateGeneration] = []string{"abc", "-1", "", "007", "99999999999999999999"}[r.Intn(5)]
		return "badTemplateGeneration=" + ds.Annotations[apps.DeprecatedTemplateGeneration]
	case 12:
		ru := &apps.RollingUpdateDaemonSet{}
		bad := []intstr.IntOrString{intstr.FromString("abc%"), intstr.FromString("150%"), intstr.FromInt32(-1), intstr.FromString("5"), intstr.FromString("0.5%"), intstr.FromInt32(0), intstr.FromString("1%"), intstr.FromString("99%")}
		a, b := bad[r.Intn(len(bad))], bad[r.Intn(len(bad))]
		ru.MaxUnavailable, ru.MaxSurge = &a, &b
		if r.Intn(3) == 0 {
			ru.MaxSurge = nil
		}
		ds.Spec.UpdateStrategy = apps.DaemonSetUpdateStrategy{Type: apps.RollingUpdateDaemonSetStrategyType, RollingUpdate: ru}
		return "oddRolling " + a.String() + " " + b.String()
	case 13:
		t.Spec.NodeName = ""
		if len(c.Nodes) > 0 {
			t.Spec.NodeName = c.Nodes[r.Intn(len(c.Nodes))].Name
		}
		templateChanged(ds)
		return "templateNodeName " + t.Spec.NodeName
	case 14: // pod readiness variants
		if len(c.Pods) > 0 {
			p := c.Pods[r.Intn(len(c.Pods))]
			switch r.Intn(3) {
			case 0:
				for i := range p.Status.Conditions {
					if p.Status.Conditions[i].Type == v1.PodReady {
						p.Status.Conditions[i].Status = v1.ConditionUnknown
					}
				}
			case 1:
				p.Status.Conditions = nil
			case 2:
				setReady(p, true, c.Now)
			}
			return "readiness " + p.Name
		}
	case 15: // selector with expressions (template labels still match)
		ds.Spec.Selector.MatchExpressions = append(ds.Spec.Selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: "tier", Operator: []metav1.LabelSelectorOperator{metav1.LabelSelectorOpExists, metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpDoesNotExist}[r.Intn(4)], Values: nil})
		sel := &ds.Spec.Selector.MatchExpressions[len(ds.Spec.Selector.MatchExpressions)-1]
		if sel.Operator == metav1.LabelSelectorOpIn || sel.Operator == metav1.LabelSelectorOpNotIn {
			sel.Values = []string{"node"}
		}
		return "selectorExpr " + string(sel.Operator)
	}
	return "noop"
}

// specSnippets and containerSnippets are PodSpec and Container fields the
// recorded cases never set, including ones added in v1.34 to v1.37; exoticField
// merges one into the template.
var specSnippets = []string{
	`{"os":{"name":"linux"}}`, `{"hostUsers":false}`, `{"shareProcessNamespace":true}`, `{"setHostnameAsFQDN":true}`,
	`{"priorityClassName":"system-node-critical"}`, `{"runtimeClassName":"gvisor"}`, `{"overhead":{"cpu":"250m"}}`,
	`{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"x"}}}]}`,
	`{"readinessGates":[{"conditionType":"example.com/ready"}]}`,
	`{"dnsConfig":{"nameservers":["1.1.1.1"],"options":[{"name":"ndots","value":"2"}]}}`,
	`{"hostAliases":[{"ip":"10.0.0.1","hostnames":["a"]}]}`,
	`{"resources":{"limits":{"cpu":"1"},"requests":{"cpu":"1"}}}`,
	`{"hostnameOverride":"foo"}`,
	`{"initContainers":[{"name":"sidecar","image":"busybox","restartPolicy":"Always","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}]}`,
	`{"volumes":[{"name":"v","emptyDir":{"sizeLimit":"1Gi","medium":"Memory"}}]}`,
	`{"volumes":[{"name":"img","image":{"reference":"busybox","pullPolicy":"IfNotPresent"}}]}`,
	`{"volumes":[{"name":"hp","hostPath":{"path":"/var/log","type":""}},{"name":"cm","configMap":{"name":"cm","defaultMode":420}}]}`,
	`{"securityContext":{"seccompProfile":{"type":"RuntimeDefault"},"appArmorProfile":{"type":"RuntimeDefault"},"runAsUser":1000,"fsGroupChangePolicy":"OnRootMismatch","supplementalGroupsPolicy":"Merge","seLinuxChangePolicy":"Recursive"}}`,
	`{"schedulingGates":[{"name":"example.com/gate"}]}`,
	`{"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"gpu-tmpl"}]}`,
	`{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"a":"b"}},"topologyKey":"kubernetes.io/hostname"}]}}}`,
	`{"activeDeadlineSeconds":600}`, `{"automountServiceAccountToken":false}`, `{"serviceAccountName":"agent","deprecatedServiceAccount":"agent"}`,
	`{"preemptionPolicy":"Never"}`, `{"enableServiceLinks":false}`, `{"hostPID":true,"hostIPC":true}`,
	`{"workloadRef":{"name":"w","podGroup":"g"}}`,
}
var containerSnippets = []string{
	`{"resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}]}`,
	`{"lifecycle":{"stopSignal":"SIGUSR1","preStop":{"sleep":{"seconds":5}}}}`,
	`{"securityContext":{"privileged":true,"capabilities":{"add":["NET_ADMIN"]},"procMount":"Default"}}`,
	`{"livenessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}`,
	`{"readinessProbe":{"grpc":{"port":9000,"service":""},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}`,
	`{"restartPolicy":"Always","restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"In","values":[42]}}]}`,
	`{"env":[{"name":"NODE","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"spec.nodeName"}}},{"name":"MEM","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1Mi"}}}]}`,
	`{"envFrom":[{"configMapRef":{"name":"cm"},"prefix":"X_"}]}`,
	`{"volumeMounts":[{"name":"v","mountPath":"/v","recursiveReadOnly":"Disabled","mountPropagation":"HostToContainer"}]}`,
	`{"ports":[{"containerPort":53,"protocol":"UDP","hostPort":53}]}`,
	`{"command":["/bin/agent","--v=2"],"args":["a b","c"],"workingDir":"/w","stdin":true,"tty":true}`,
	`{"resources":{"claims":[{"name":"gpu","request":"r"}],"limits":{"nvidia.com/gpu":"1"},"requests":{"nvidia.com/gpu":"1"}}}`,
}

// exoticField merges one JSON snippet into the template's pod spec or first
// container (decoding through the typed API drops fields this version does
// not know, as an API server of this version would).
func exoticField(r *rand.Rand, ds *apps.DaemonSet) string {
	spec := &ds.Spec.Template.Spec
	var target any = spec
	snips := specSnippets
	if r.Intn(3) == 0 && len(spec.Containers) > 0 {
		target = &spec.Containers[0]
		snips = containerSnippets
	}
	snip := snips[r.Intn(len(snips))]
	b, _ := json.Marshal(target)
	var m map[string]any
	json.Unmarshal(b, &m)
	var add map[string]any
	json.Unmarshal([]byte(snip), &add)
	for k, v := range add {
		m[k] = v
	}
	b, _ = json.Marshal(m)
	switch t := target.(type) {
	case *v1.PodSpec:
		var ns v1.PodSpec
		if json.Unmarshal(b, &ns) != nil {
			return "noop"
		}
		*t = ns
	case *v1.Container:
		var nc v1.Container
		if json.Unmarshal(b, &nc) != nil {
			return "noop"
		}
		*t = nc
	}
	templateChanged(ds)
	if len(snip) > 40 {
		snip = snip[:40]
	}
	return "exotic " + snip
}

// baseTemplateJSON is the generated DaemonSet's template as an API server
// stores it, defaults filled in.
var baseTemplateJSON = `{"metadata":{"labels":{"app":"gen-agent"}},"spec":{"containers":[{"name":"agent","image":"registry.example.com/agent:v1","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}}`

// generate makes a cluster from scratch: a DaemonSet with one to three
// template revisions (the newest sometimes without its ControllerRevision),
// up to eight nodes (one cluster in 25 has 240 to 280, past the controller's
// create burst) with taints and conditions, and zero to two pods per node of
// any of the revisions, some failed.
func generate(r *rand.Rand) *cluster {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	ds := &apps.DaemonSet{}
	ds.Name = "gen-agent"
	ds.Namespace = []string{"default", "kube-system"}[r.Intn(2)]
	ds.UID = newUID(r, "ds")
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
			rv := revisionFor(r, ds, int64(i), h)
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
		n.UID = newUID(r, "node")
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
