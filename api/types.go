package api

import (
	"time"

	"github.com/daemonplan/daemonplan/resource"
)

// Well-known label and annotation keys the controller reads and writes.
const (
	// LabelRevisionHash is the pod and revision label holding the hash of the
	// revision a pod was created from.
	LabelRevisionHash = "controller-revision-hash"
	// LabelTemplateGeneration is the pod label holding the DaemonSet's
	// template generation at the time the pod was created.
	LabelTemplateGeneration = "pod-template-generation"
	// AnnotationTemplateGeneration is the DaemonSet annotation in which the
	// API server keeps the template generation.
	AnnotationTemplateGeneration = "deprecated.daemonset.template.generation"
	// AnnotationChangeCause is the annotation kubectl shows in rollout history.
	AnnotationChangeCause = "kubernetes.io/change-cause"
)

// OwnerRef is the controller owner reference of a pod or revision. Only the
// UID decides ownership; Kind and Name are carried for messages.
type OwnerRef struct {
	Kind string
	Name string
	UID  string
}

// StrategyType is a [DaemonSet] update strategy.
type StrategyType string

// The update strategies. The empty type is defaulted to RollingUpdate.
const (
	RollingUpdate StrategyType = "RollingUpdate"
	OnDelete      StrategyType = "OnDelete"
)

// IntOrPercent is an int-or-string budget (maxUnavailable, maxSurge). Use
// [Int] or [Percent] to build one. A string that is not "N%" is kept as is so
// that validation can report it.
type IntOrPercent struct {
	IsString bool
	IntVal   int32
	StrVal   string
}

// Int returns an absolute budget.
func Int(n int32) *IntOrPercent { return &IntOrPercent{IntVal: n} }

// Percent returns a string budget such as "25%" (any string is accepted;
// validation and scaling judge it).
func Percent(s string) *IntOrPercent { return &IntOrPercent{IsString: true, StrVal: s} }

// RollingUpdateParams are the budgets of a [RollingUpdate] strategy. A nil
// MaxUnavailable is an error when budgets are scaled (the API defaults it
// to 1); a nil MaxSurge means 0.
type RollingUpdateParams struct {
	MaxUnavailable *IntOrPercent
	MaxSurge       *IntOrPercent
}

// UpdateStrategy is spec.updateStrategy.
type UpdateStrategy struct {
	Type          StrategyType
	RollingUpdate *RollingUpdateParams
}

// PodTemplate is the part of spec.template that decisions need.
type PodTemplate struct {
	Labels      map[string]string
	Annotations map[string]string
	// NodeName is spec.template.spec.nodeName; when set the DaemonSet runs
	// only on that node.
	NodeName     string
	NodeSelector map[string]string
	// RequiredNodeAffinity is
	// affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
	// nil means no constraint.
	RequiredNodeAffinity *NodeSelector
	Tolerations          []Toleration
	HostNetwork          bool
	// RestartPolicy and ActiveDeadlineSeconds are read by validation and
	// stored in revisions (revision.TemplateData); decisions never read them.
	RestartPolicy         string
	ActiveDeadlineSeconds *int64
	// Containers and InitContainers are spec.containers and
	// spec.initContainers, in order. The planner's decisions never read
	// them; revisions (a new image is a new revision), requests and host
	// ports do.
	Containers     []Container
	InitContainers []Container
	// Overhead is spec.overhead, what the pod's runtime class costs on top
	// of its containers.
	Overhead resource.List
	// Resources is spec.resources, the pod-level requests and limits; both
	// empty means unset.
	Resources Resources
	// PriorityClassName is spec.priorityClassName, "" for none. Priority
	// and PreemptionPolicy are spec.priority (nil when unset) and
	// spec.preemptionPolicy ("" when unset); the Priority admission plugin
	// sets them from the class when the pod is created (package
	// admission). Decisions never read them; the scheduler's preemption
	// does (package overhead).
	PriorityClassName string
	Priority          *int32
	PreemptionPolicy  string
	// RuntimeClassName is spec.runtimeClassName, "" for none: the
	// RuntimeClass admission plugin sets Overhead from that class.
	RuntimeClassName string
}

// The preemption policies of a pod or PriorityClass
// (spec.preemptionPolicy); "" is PreemptLowerPriority.
const (
	PreemptLowerPriority = "PreemptLowerPriority"
	PreemptNever         = "Never"
)

// ContainerRestartPolicyAlways is the restartPolicy that makes an init
// container a sidecar: it starts before the regular containers and keeps
// running beside them.
const ContainerRestartPolicyAlways = "Always"

// Container is one container or init container of a pod template: what
// revisions, requests and host ports read.
type Container struct {
	Name  string
	Image string
	// Resources is resources.requests and resources.limits.
	Resources Resources
	Ports     []ContainerPort
	// RestartPolicy is the container's own restartPolicy: "" or, on an init
	// container, ContainerRestartPolicyAlways for a sidecar.
	RestartPolicy string
}

// Resources is a requests-and-limits pair (corev1.ResourceRequirements).
// Nil and empty lists mean the same: nothing requested or limited.
type Resources struct {
	Requests resource.List
	Limits   resource.List
}

// ContainerPort is one entry of a container's ports.
type ContainerPort struct {
	Name          string
	ContainerPort int32
	// HostPort is the node port the container binds; 0 binds none.
	HostPort int32
	// Protocol is TCP, UDP or SCTP; "" means TCP.
	Protocol string
	// HostIP is the node address HostPort binds; "" means every address.
	HostIP string
}

// Status is the [DaemonSet] status the controller writes.
type Status struct {
	CurrentNumberScheduled int32
	NumberMisscheduled     int32
	DesiredNumberScheduled int32
	NumberReady            int32
	ObservedGeneration     int64
	UpdatedNumberScheduled int32
	NumberAvailable        int32
	NumberUnavailable      int32
	CollisionCount         *int32
}

// DaemonSet is a snapshot of one DaemonSet: everything a sync reads from it.
// The library never changes a DaemonSet it is given.
type DaemonSet struct {
	Namespace string
	Name      string
	UID       string
	// Generation is metadata.generation.
	Generation int64
	// Annotations are the DaemonSet's own annotations; the template
	// generation is read from AnnotationTemplateGeneration and revisions
	// copy them.
	Annotations map[string]string
	// Deleting reports that metadata.deletionTimestamp is set.
	Deleting bool
	// Selector is spec.selector; nil selects nothing.
	Selector *LabelSelector
	Template PodTemplate
	// TemplateData is the template's content as revisions store it. Two
	// templates are the same revision iff their TemplateData are equal
	// byte for byte. Leave it nil to let package revision derive a
	// canonical encoding from Template; the kube module fills it with the
	// exact bytes upstream stores.
	TemplateData   []byte
	UpdateStrategy UpdateStrategy
	// MinReadySeconds is how long a Ready pod must stay Ready to count as
	// available.
	MinReadySeconds int32
	// RevisionHistoryLimit is how many old revisions to keep; nil means the
	// API default, 10.
	RevisionHistoryLimit *int32
	Status               Status
}

// Node is a snapshot of one node: its name, labels and taints. Readiness,
// capacity and unschedulable are not read (docs/eligibility.md, E11): only
// taints matter.
type Node struct {
	Name   string
	Labels map[string]string
	Taints []Taint
	// Version, when not empty, names this state of the node: a caller that
	// sets it gives the node a new Version whenever its labels or taints
	// change (kube/kubesync's Planner sets the node's UID and
	// resourceVersion). A daemonplan.Planner then keeps what the node
	// decided from one sync to the next while its name and Version stay the
	// same and the DaemonSet's placement (template nodeName, nodeSelector,
	// required node affinity, tolerations, hostNetwork) and the placement
	// options do not change, instead of reading its labels again. Empty, the
	// node is decided at every sync. It decides nothing itself.
	Version string
}

// PodPhase is a pod's status.phase.
type PodPhase string

// The pod phases. The zero value is treated like Pending.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// Pod is a snapshot of one pod.
type Pod struct {
	Namespace string
	Name      string
	UID       string
	Labels    map[string]string
	// Controller is the controller owner reference; nil for an orphan.
	Controller *OwnerRef
	// NodeName is spec.nodeName; empty while the pod is unscheduled.
	NodeName string
	// RequiredNodeAffinity is the pod's required node affinity; it names the
	// target node of an unscheduled pod (TargetNodeName).
	RequiredNodeAffinity *NodeSelector
	Phase                PodPhase
	// Ready reports a Ready condition with status True; ReadySince is that
	// condition's lastTransitionTime (zero when unknown).
	Ready      bool
	ReadySince time.Time
	Created    time.Time
	// Deleting reports that metadata.deletionTimestamp is set.
	Deleting bool
}
