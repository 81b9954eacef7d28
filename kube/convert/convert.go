package convert

import (
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/upstream"
	"github.com/daemonplan/daemonplan/resource"
	"github.com/daemonplan/daemonplan/revision"
)

// DaemonSet converts ds. TemplateData is upstream.RevisionData(ds), the
// exact bytes upstream's revisions store, so that existing
// ControllerRevisions match as they do in a cluster. It fails if ds is nil,
// cannot be encoded as JSON, or holds a quantity Workload cannot convert.
func DaemonSet(ds *appsv1.DaemonSet) (*api.DaemonSet, error) {
	data, err := upstream.RevisionData(ds)
	if err != nil {
		return nil, err
	}
	spec := &ds.Spec
	pod := &spec.Template.Spec
	w, err := Workload(pod)
	if err != nil {
		return nil, err
	}
	out := &api.DaemonSet{
		Namespace:   ds.Namespace,
		Name:        ds.Name,
		UID:         string(ds.UID),
		Generation:  ds.Generation,
		Annotations: ds.Annotations,
		Deleting:    ds.DeletionTimestamp != nil,
		Selector:    LabelSelector(spec.Selector),
		Template: api.PodTemplate{
			Labels:                spec.Template.Labels,
			Annotations:           spec.Template.Annotations,
			NodeName:              pod.NodeName,
			NodeSelector:          pod.NodeSelector,
			RequiredNodeAffinity:  requiredNodeAffinity(pod.Affinity),
			Tolerations:           tolerations(pod.Tolerations),
			HostNetwork:           pod.HostNetwork,
			RestartPolicy:         string(pod.RestartPolicy),
			ActiveDeadlineSeconds: clone(pod.ActiveDeadlineSeconds),
			Containers:            w.Containers,
			InitContainers:        w.InitContainers,
			Overhead:              w.Overhead,
			Resources:             w.Resources,
			PriorityClassName:     w.PriorityClassName,
			Priority:              w.Priority,
			PreemptionPolicy:      w.PreemptionPolicy,
			RuntimeClassName:      w.RuntimeClassName,
		},
		TemplateData: data,
		UpdateStrategy: api.UpdateStrategy{
			Type: api.StrategyType(spec.UpdateStrategy.Type),
		},
		MinReadySeconds:      spec.MinReadySeconds,
		RevisionHistoryLimit: clone(spec.RevisionHistoryLimit),
		Status:               Status(ds.Status),
	}
	if ru := spec.UpdateStrategy.RollingUpdate; ru != nil {
		out.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{
			MaxUnavailable: IntOrPercent(ru.MaxUnavailable),
			MaxSurge:       IntOrPercent(ru.MaxSurge),
		}
	}
	return out, nil
}

// Status converts a DaemonSet's status, as DaemonSet does: for a caller
// that holds the conversion of a DaemonSet whose spec did not change.
func Status(s appsv1.DaemonSetStatus) api.Status {
	return api.Status{
		CurrentNumberScheduled: s.CurrentNumberScheduled,
		NumberMisscheduled:     s.NumberMisscheduled,
		DesiredNumberScheduled: s.DesiredNumberScheduled,
		NumberReady:            s.NumberReady,
		ObservedGeneration:     s.ObservedGeneration,
		UpdatedNumberScheduled: s.UpdatedNumberScheduled,
		NumberAvailable:        s.NumberAvailable,
		NumberUnavailable:      s.NumberUnavailable,
		CollisionCount:         clone(s.CollisionCount),
	}
}

// Workload converts the parts of a pod spec that decide what the pod takes
// on a node: containers and init containers (name, image, requests,
// limits, ports, restartPolicy), overhead and pod-level resources. It is
// returned as an api.PodTemplate holding only those fields, so that it
// serves for a template as for a pod already on a node. Quantities keep
// their value exactly and their format; an error (with the field path)
// means apimachinery printed a quantity package resource cannot parse,
// which the differential tests have not seen happen. A nil spec is the
// empty spec.
func Workload(spec *corev1.PodSpec) (api.PodTemplate, error) {
	var out api.PodTemplate
	if spec == nil {
		return out, nil
	}
	var err error
	if out.Containers, err = containers(spec.Containers, "spec.containers"); err != nil {
		return out, err
	}
	if out.InitContainers, err = containers(spec.InitContainers, "spec.initContainers"); err != nil {
		return out, err
	}
	if out.Overhead, err = resourceList(spec.Overhead, "spec.overhead"); err != nil {
		return out, err
	}
	if r := spec.Resources; r != nil {
		if out.Resources, err = requirements(*r, "spec.resources"); err != nil {
			return out, err
		}
	}
	out.PriorityClassName = spec.PriorityClassName
	out.Priority = clone(spec.Priority)
	if spec.PreemptionPolicy != nil {
		out.PreemptionPolicy = string(*spec.PreemptionPolicy)
	}
	if spec.RuntimeClassName != nil {
		out.RuntimeClassName = *spec.RuntimeClassName
	}
	return out, nil
}

func containers(cs []corev1.Container, path string) ([]api.Container, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	out := make([]api.Container, len(cs))
	for i := range cs {
		c := &cs[i]
		r, err := requirements(c.Resources, fmt.Sprintf("%s[%d].resources", path, i))
		if err != nil {
			return nil, err
		}
		out[i] = api.Container{Name: c.Name, Image: c.Image, Resources: r}
		if c.RestartPolicy != nil {
			out[i].RestartPolicy = string(*c.RestartPolicy)
		}
		if len(c.Ports) > 0 {
			out[i].Ports = make([]api.ContainerPort, len(c.Ports))
			for j, p := range c.Ports {
				out[i].Ports[j] = api.ContainerPort{
					Name: p.Name, ContainerPort: p.ContainerPort, HostPort: p.HostPort,
					Protocol: string(p.Protocol), HostIP: p.HostIP,
				}
			}
		}
	}
	return out, nil
}

func requirements(r corev1.ResourceRequirements, path string) (api.Resources, error) {
	req, err := resourceList(r.Requests, path+".requests")
	if err != nil {
		return api.Resources{}, err
	}
	lim, err := resourceList(r.Limits, path+".limits")
	if err != nil {
		return api.Resources{}, err
	}
	return api.Resources{Requests: req, Limits: lim}, nil
}

// resourceList converts l, keeping nil and empty apart.
func resourceList(l corev1.ResourceList, path string) (resource.List, error) {
	if l == nil {
		return nil, nil
	}
	out := make(resource.List, len(l))
	for name, q := range l {
		v, err := quantity(q)
		if err != nil {
			return nil, fmt.Errorf("%s[%s]: %w", path, name, err)
		}
		out[string(name)] = v
	}
	return out, nil
}

// quantity converts q through the text apimachinery prints, then gives it
// q's format, which that text does not always show (0Ki prints "0", 0.5Ki
// "512"). Where apimachinery prints a value it cannot write (values of
// 10^21 and more lose their suffix; resource's doc.go, Divergences), the
// exact decimal value is read instead.
func quantity(q apiresource.Quantity) (resource.Quantity, error) {
	v, err := resource.Parse(q.String())
	if err != nil {
		return v, err
	}
	exact, err := resource.Parse(q.AsDec().String())
	if err != nil {
		return v, err
	}
	if !v.Equal(exact) {
		v = exact
	}
	if f := format(q.Format); f != 0 && f != v.Format() {
		v = v.WithFormat(f)
	}
	return v, nil
}

func format(f apiresource.Format) resource.Format {
	switch f {
	case apiresource.DecimalExponent:
		return resource.DecimalExponent
	case apiresource.BinarySI:
		return resource.BinarySI
	case apiresource.DecimalSI:
		return resource.DecimalSI
	}
	return 0
}

// HashFunc returns the revision hash of ds as the controller of Kubernetes
// version v computes it (upstream.Version.Hash of ds.Spec.Template), as a
// revision.HashFunc. The returned function ignores its *api.DaemonSet
// argument, which must be the conversion of ds, and uses the collision count
// it is given. The error reports a nil ds or an unsupported version; ds must not change
// while the function is in use.
func HashFunc(ds *appsv1.DaemonSet, v upstream.Version) (revision.HashFunc, error) {
	if ds == nil {
		return nil, errors.New("convert.HashFunc: nil DaemonSet")
	}
	template := &ds.Spec.Template
	// Hashing once here surfaces every error: later calls differ only in
	// the collision count.
	if _, err := v.Hash(template, nil); err != nil {
		return nil, err
	}
	return func(_ *api.DaemonSet, collisionCount *int32) string {
		h, _ := v.Hash(template, collisionCount)
		return h
	}, nil
}

// Node converts n: its name, labels and taints (without timeAdded). n must
// not be nil: Node panics on a nil node.
func Node(n *corev1.Node) api.Node {
	if n == nil {
		panic("convert.Node: nil node")
	}
	out := api.Node{Name: n.Name, Labels: n.Labels}
	if len(n.Spec.Taints) > 0 {
		out.Taints = make([]api.Taint, len(n.Spec.Taints))
		for i, t := range n.Spec.Taints {
			out.Taints[i] = api.Taint{Key: t.Key, Value: t.Value, Effect: api.TaintEffect(t.Effect)}
		}
	}
	return out
}

// Nodes converts every node, in order. No element must be nil: Nodes panics
// as Node does.
func Nodes(nodes []*corev1.Node) []api.Node {
	out := make([]api.Node, len(nodes))
	for i, n := range nodes {
		out[i] = Node(n)
	}
	return out
}

// Pod converts p. Ready reports the first Ready condition with status True,
// and ReadySince is that condition's lastTransitionTime, as upstream's
// IsPodReady and IsPodAvailable read them. p must not be nil: Pod panics on
// a nil pod.
func Pod(p *corev1.Pod) api.Pod {
	if p == nil {
		panic("convert.Pod: nil pod")
	}
	out := api.Pod{
		Namespace:            p.Namespace,
		Name:                 p.Name,
		UID:                  string(p.UID),
		Labels:               p.Labels,
		Controller:           controllerOf(p.OwnerReferences),
		NodeName:             p.Spec.NodeName,
		RequiredNodeAffinity: requiredNodeAffinity(p.Spec.Affinity),
		Phase:                api.PodPhase(p.Status.Phase),
		Created:              utc(p.CreationTimestamp),
		Deleting:             p.DeletionTimestamp != nil,
	}
	for i := range p.Status.Conditions {
		if c := &p.Status.Conditions[i]; c.Type == corev1.PodReady {
			out.Ready = c.Status == corev1.ConditionTrue
			out.ReadySince = utc(c.LastTransitionTime)
			break
		}
	}
	return out
}

// Pods converts every pod, in order. No element must be nil: Pods panics as
// Pod does.
func Pods(pods []*corev1.Pod) []api.Pod {
	out := make([]api.Pod, len(pods))
	for i, p := range pods {
		out[i] = Pod(p)
	}
	return out
}

// Revision converts cr. Data is cr.data.raw as the API server stores it
// (upstream.StoredData): the indentation that kubectl output adds is
// removed, so that Data compares byte for byte with TemplateData. cr must
// not be nil: Revision panics on a nil ControllerRevision.
func Revision(cr *appsv1.ControllerRevision) revision.Revision {
	if cr == nil {
		panic("convert.Revision: nil ControllerRevision")
	}
	return revision.Revision{
		Namespace:   cr.Namespace,
		Name:        cr.Name,
		Labels:      cr.Labels,
		Annotations: cr.Annotations,
		Controller:  controllerOf(cr.OwnerReferences),
		Revision:    cr.Revision,
		Data:        upstream.StoredData(cr.Data.Raw),
		Deleting:    cr.DeletionTimestamp != nil,
	}
}

// Revisions converts every ControllerRevision, in order. No element must be
// nil: Revisions panics as Revision does.
func Revisions(crs []*appsv1.ControllerRevision) []revision.Revision {
	out := make([]revision.Revision, len(crs))
	for i, cr := range crs {
		out[i] = Revision(cr)
	}
	return out
}

// controllerOf returns the first owner reference with controller: true, as
// metav1.GetControllerOf does, or nil.
func controllerOf(refs []metav1.OwnerReference) *api.OwnerRef {
	for i := range refs {
		if r := &refs[i]; r.Controller != nil && *r.Controller {
			return &api.OwnerRef{Kind: r.Kind, Name: r.Name, UID: string(r.UID)}
		}
	}
	return nil
}

// LabelSelector converts a label selector to daemonplan's type; nil stays
// nil. The maps and value lists are shared, not copied.
func LabelSelector(ls *metav1.LabelSelector) *api.LabelSelector {
	if ls == nil {
		return nil
	}
	out := &api.LabelSelector{MatchLabels: ls.MatchLabels}
	if len(ls.MatchExpressions) > 0 {
		out.MatchExpressions = make([]api.LabelSelectorRequirement, len(ls.MatchExpressions))
		for i, r := range ls.MatchExpressions {
			out.MatchExpressions[i] = api.LabelSelectorRequirement{
				Key: r.Key, Operator: api.SelectorOperator(r.Operator), Values: r.Values,
			}
		}
	}
	return out
}

// requiredNodeAffinity returns
// affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, nil
// when any step is nil.
func requiredNodeAffinity(a *corev1.Affinity) *api.NodeSelector {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	out := &api.NodeSelector{Terms: make([]api.NodeSelectorTerm, len(terms))}
	for i, t := range terms {
		out.Terms[i] = api.NodeSelectorTerm{
			MatchExpressions: nodeRequirements(t.MatchExpressions),
			MatchFields:      nodeRequirements(t.MatchFields),
		}
	}
	return out
}

func nodeRequirements(rs []corev1.NodeSelectorRequirement) []api.NodeSelectorRequirement {
	if len(rs) == 0 {
		return nil
	}
	out := make([]api.NodeSelectorRequirement, len(rs))
	for i, r := range rs {
		out[i] = api.NodeSelectorRequirement{Key: r.Key, Operator: api.SelectorOperator(r.Operator), Values: r.Values}
	}
	return out
}

func tolerations(ts []corev1.Toleration) []api.Toleration {
	if len(ts) == 0 {
		return nil
	}
	out := make([]api.Toleration, len(ts))
	for i, t := range ts {
		out[i] = api.Toleration{
			Key:               t.Key,
			Operator:          api.TolerationOperator(t.Operator),
			Value:             t.Value,
			Effect:            api.TaintEffect(t.Effect),
			TolerationSeconds: clone(t.TolerationSeconds),
		}
	}
	return out
}

// IntOrPercent converts an int-or-string count (a budget, a partition, a
// canary size); a string is kept as is for validation and scaling to judge,
// and nil stays nil.
func IntOrPercent(v *intstr.IntOrString) *api.IntOrPercent {
	switch {
	case v == nil:
		return nil
	case v.Type == intstr.String:
		return api.Percent(v.StrVal)
	default:
		return api.Int(v.IntVal)
	}
}

func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func utc(t metav1.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// ResourceList converts a resource list such as a node's
// status.allocatable, keeping nil and empty apart and every quantity's
// value and format (see Workload).
func ResourceList(l corev1.ResourceList) (resource.List, error) {
	return resourceList(l, "")
}
