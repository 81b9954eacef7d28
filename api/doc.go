// Package api holds daemonplan's snapshot types: the [DaemonSet], node and pod
// as a sync reads them, the update strategy and its budgets, the status the
// controller writes, label and node selectors, taints and tolerations, and
// the well-known labels, annotations and taint keys. Every other package of
// daemonplan reads these types; api itself imports only package field (its
// errors), package resource (the quantities of requests and limits) and an
// internal digit parser, so
// it is the leaf that the deciding packages (selector, taints, placement,
// revision, rollout) build on.
//
// It also owns what the API server does to a [DaemonSet] before a controller
// ever sees it, each as a pure function:
//
//   - [Default] returns a copy with the API defaults applied;
//   - [Validate] and [ValidateUpdate] return every problem the API server would
//     reject, each with its Kubernetes field path
//     ([github.com/daemonplan/daemonplan/field.ErrorList]); the parts they are
//     built from are exported for callers that check one value:
//     [ValidateLabelSelector], [ValidateNodeSelector], [ValidateTolerations],
//     [ValidateLabelKey], [ValidateLabelValue], [IsDNS1123Subdomain] (and
//     [ValidateNodeSelectorMap], which reports each key at its own path, where
//     Validate reports the map);
//   - [BumpGenerations] numbers a DaemonSet's generations after an update
//     that makes a [SpecChange], as the API server does;
//   - the DeepCopy methods copy an object so that nothing is shared.
//
// And the facts about one pod that several packages need: [TargetNodeName],
// [IsAvailable], [IsUpdated], [IsTerminal], a [DaemonSet]'s
// [TemplateGeneration], and what a pod made from a template takes on its node:
// [PodTemplate.Requests] (the scheduler's effective requests of the stored pod)
// and [PodTemplate.HostPorts].
//
// And what a snapshot's lists must be to be planned at all
// (docs/never-harm.md, N1 and N2): [ValidateNodes] and [ValidatePods] check
// a list and report every problem; [NodeWellFormed] and [PodWellFormed]
// state what they require of one object alone, for callers that check the
// list their own way.
//
// The types carry only what decisions read. The kube module converts
// Kubernetes API objects (k8s.io/api) into them. No function of this
// package changes its arguments.
package api
