package convert

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/overhead"
)

// LimitRange converts lr for package admission: its Container, Pod and
// PersistentVolumeClaim items with their quantities (value and format
// kept). An error names the field path of a quantity package resource
// cannot read ("spec.limits[0].default[cpu]"). A nil lr converts to the
// zero LimitRange.
func LimitRange(lr *corev1.LimitRange) (admission.LimitRange, error) {
	if lr == nil {
		return admission.LimitRange{}, nil
	}
	out := admission.LimitRange{Namespace: lr.Namespace, Name: lr.Name}
	for i, it := range lr.Spec.Limits {
		p := fmt.Sprintf("spec.limits[%d].", i)
		c := admission.LimitRangeItem{Type: string(it.Type)}
		var err error
		if c.Max, err = resourceList(it.Max, p+"max"); err != nil {
			return admission.LimitRange{}, err
		}
		if c.Min, err = resourceList(it.Min, p+"min"); err != nil {
			return admission.LimitRange{}, err
		}
		if c.Default, err = resourceList(it.Default, p+"default"); err != nil {
			return admission.LimitRange{}, err
		}
		if c.DefaultRequest, err = resourceList(it.DefaultRequest, p+"defaultRequest"); err != nil {
			return admission.LimitRange{}, err
		}
		if c.MaxLimitRequestRatio, err = resourceList(it.MaxLimitRequestRatio, p+"maxLimitRequestRatio"); err != nil {
			return admission.LimitRange{}, err
		}
		out.Limits = append(out.Limits, c)
	}
	return out, nil
}

// PriorityClass converts pc for package admission; a nil pc converts to
// the zero PriorityClass.
func PriorityClass(pc *schedulingv1.PriorityClass) admission.PriorityClass {
	if pc == nil {
		return admission.PriorityClass{}
	}
	out := admission.PriorityClass{Name: pc.Name, Value: pc.Value, GlobalDefault: pc.GlobalDefault}
	if pc.PreemptionPolicy != nil {
		out.PreemptionPolicy = string(*pc.PreemptionPolicy)
	}
	return out
}

// RuntimeClass converts rc for package admission: its overhead.podFixed,
// nil when the class sets no overhead. A nil rc converts to the zero
// RuntimeClass.
func RuntimeClass(rc *nodev1.RuntimeClass) (admission.RuntimeClass, error) {
	if rc == nil {
		return admission.RuntimeClass{}, nil
	}
	out := admission.RuntimeClass{Name: rc.Name}
	if rc.Overhead != nil {
		var err error
		if out.Overhead, err = resourceList(rc.Overhead.PodFixed, "overhead.podFixed"); err != nil {
			return admission.RuntimeClass{}, err
		}
	}
	return out, nil
}

// DisruptionBudget converts pdb for package overhead's preemption: its
// selector, status.disruptionsAllowed and the names of
// status.disruptedPods, sorted. A nil pdb converts to the zero budget,
// which matches nothing.
func DisruptionBudget(pdb *policyv1.PodDisruptionBudget) overhead.DisruptionBudget {
	if pdb == nil {
		return overhead.DisruptionBudget{}
	}
	return overhead.DisruptionBudget{
		Namespace: pdb.Namespace, Name: pdb.Name,
		Selector:           LabelSelector(pdb.Spec.Selector),
		DisruptionsAllowed: pdb.Status.DisruptionsAllowed,
		DisruptedPods:      slices.Sorted(maps.Keys(pdb.Status.DisruptedPods)),
	}
}

// PodUsage converts a pod bound to a node for package overhead: its
// effective requests (api.PodTemplate.Requests of its spec, as stored),
// host ports, controller UID, namespace, name, labels, spec.priority (0
// when unset) and status.startTime (zero when unset, in UTC). A nil p
// converts to the zero PodUsage.
func PodUsage(p *corev1.Pod) (overhead.PodUsage, error) {
	if p == nil {
		return overhead.PodUsage{}, nil
	}
	w, err := Workload(&p.Spec)
	if err != nil {
		return overhead.PodUsage{}, err
	}
	w.HostNetwork = p.Spec.HostNetwork
	u := overhead.PodUsage{
		Requests: w.Requests(), HostPorts: w.HostPorts(),
		Namespace: p.Namespace, Name: p.Name, Labels: p.Labels,
	}
	if ref := controllerOf(p.OwnerReferences); ref != nil {
		u.OwnerUID = ref.UID
	}
	if p.Spec.Priority != nil {
		u.Priority = *p.Spec.Priority
	}
	if p.Status.StartTime != nil {
		u.StartTime = utc(*p.Status.StartTime)
	}
	return u, nil
}

// AdmissionObjects converts the objects admission reads, in order (nil
// elements as the zero object, which admission.Compile then refuses for
// its missing name); an error names the object and the field.
func AdmissionObjects(lrs []*corev1.LimitRange, pcs []*schedulingv1.PriorityClass, rcs []*nodev1.RuntimeClass) (admission.ClusterObjects, error) {
	var out admission.ClusterObjects
	for _, lr := range lrs {
		c, err := LimitRange(lr)
		if err != nil {
			return out, fmt.Errorf("LimitRange %s/%s: %w", c.Namespace, c.Name, err)
		}
		out.LimitRanges = append(out.LimitRanges, c)
	}
	for _, pc := range pcs {
		out.PriorityClasses = append(out.PriorityClasses, PriorityClass(pc))
	}
	for _, rc := range rcs {
		c, err := RuntimeClass(rc)
		if err != nil {
			return out, fmt.Errorf("RuntimeClass %s: %w", c.Name, err)
		}
		out.RuntimeClasses = append(out.RuntimeClasses, c)
	}
	return out, nil
}
