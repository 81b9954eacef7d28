// Package overhead answers the node-centric questions that cluster
// autoscalers and node provisioners ask the other way round from the
// DaemonSet controller: for one node, real or not yet created, which
// DaemonSets put a pod on it, what each of those pods requests and which
// host ports it binds, how much of the node the daemon pods take together,
// and, given what the node can hold, whether each daemon pod fits.
//
// It owns that question only. Whether a pod lands is the planner's own
// decision ([github.com/daemonplan/daemonplan/placement.Eligibility], with the
// same Decision and Reason); what a pod requests is
// [github.com/daemonplan/daemonplan/api.PodTemplate.Requests]; the fit is
// judged as the scheduler's NodeResourcesFit and NodePorts filters judge it and
// is reported beside the decision, never folded into it: the controller does
// not check fit, and a daemon pod that does not fit is still created and stays
// Pending. docs/overhead.md states every rule.
//
// # Entry points
//
//   - [Compile]: many DaemonSets compiled once into a [Catalog], in namespace/name
//     order, each with its node predicate, effective requests and host
//     ports.
//   - [Set.Query]: one node's decisions and total daemon requests into a
//     reusable [NodeResult], without allocating once the Result has grown to the
//     [Catalog] (compile once, query many).
//   - [Set.Report]: the same as a self-contained [NodeReport], with each
//     DaemonSet's requests and host ports, for printing.
//   - [Catalog.Fit] and [NodeReport]'s fit: with a [NodeState] (allocatable and the
//     pods already on the node), whether a daemon pod fits and, if not, why.
//   - [Catalog.Schedule] and [NodeReport]'s scheduling: what the scheduler
//     does with the pod there: it fits, stays Pending (and why), or
//     preempts which pods of lower priority, PodDisruptionBudgets
//     respected as the default preemption respects them; pods nominated
//     for the node ([NodeState.Nominated]) count as the scheduler counts
//     them. [Catalog.ScheduleBeside] is the same for a pod created while
//     the DaemonSet's own pods are still on the node (a surge).
//   - [Options.Admission]: the pods as admission leaves them (package
//     [github.com/daemonplan/daemonplan/admission]): LimitRange defaults,
//     priority, RuntimeClass overhead; [Catalog.Refusals] names the pods the
//     API server would refuse.
//   - [CompileTemplate] and [Set.QueryTemplate]: for a node not yet created,
//     described as autoscalers describe it (a [NodeTemplate] of label
//     requirements, labels, taints and startup taints), whether each
//     DaemonSet's pod lands on every node the template can produce, on
//     none, or depending on labels, and where; exactly the per-node answer
//     of Query, taken over all those nodes. The work per DaemonSet is
//     bounded ([MaxTemplateSteps]): one whose affinity terms would cost
//     more is refused with an error that names it and the limit.
//   - [Set.PlanTemplate]: the same with the daemon pods' requests, and per
//     [InstanceType] what they take of its allocatable and whether they
//     fit together.
//
// Every function is pure: no I/O, no clock, and no input is changed.
// DaemonSets and nodes must not change while a [Catalog] or [NodeResult] built from
// them is in use.
package overhead
