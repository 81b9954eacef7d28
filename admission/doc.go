// Package admission turns a daemon pod's template into the pod the API
// server stores: what the default admission plugins a cluster runs
// (LimitRanger, Priority, RuntimeClass) and the API server's own defaulting
// make of it, from the LimitRanges, PriorityClasses and RuntimeClasses given
// as plain data.
//
// It owns that question only. What the stored pod then requests of a node
// is [github.com/daemonplan/daemonplan/api.PodTemplate.Requests] of the
// admitted template; whether it fits and whom it would preempt is package
// overhead's. The rules are numbered in docs/overhead.md (AD1–AD7), each
// with the upstream function it follows.
//
// A pod the API server would refuse (a PriorityClass or RuntimeClass that
// does not exist, a conflicting priority or overhead, a LimitRange bound
// the defaults break) is said, never guessed at: [Admitted.Refused] names
// the field and why, and the controller's create would fail.
//
// # Entry points
//
//   - [Compile]: the objects checked once into [Rules] (every problem, with
//     its field path under "limitRanges[i]", "priorityClasses[i]",
//     "runtimeClasses[i]").
//   - [Rules.Admit]: one template, in one namespace, as admission leaves
//     it, with its priority and preemption policy. A nil *Rules admits
//     nothing: the template is returned as given, which is what every
//     package did before admission was modelled.
//
// Every function is pure: no I/O, no clock, and no input is changed.
package admission
