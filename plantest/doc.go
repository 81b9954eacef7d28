// Package plantest is a kit for property tests of DaemonSet plans, in the
// spirit of net/http/httptest: generators of coherent snapshots, checkers
// of the invariants every plan must keep, and a driver that rolls a
// simulated cluster out and checks every step. daemonplan's own tests use
// it; so can yours, against daemonplan or against a planner of your own.
//
// It owns no planning. [CheckSync] builds on
// [github.com/daemonplan/daemonplan.CheckPlan], the safeguard any caller may
// run before applying a plan, and reports each of its violations under an
// [Invariant]; the checkers it adds recount what they need from the snapshot
// with a deliberately naive transcription of upstream's rules (eligibility,
// claiming, buckets, availability, budgets; the module's internal reference
// planner), never with the planner's code, and trust only Plan.Hash. They
// assume [github.com/daemonplan/daemonplan.Options] are zero but for Hash: a
// plan made with other placement options may break them for good reasons. This
// is the only package of the module that imports pgregory.net/rapid outside
// tests.
//
// # Generators
//
// Built with rapid.Custom, so that failures shrink to small snapshots, and
// with fixed names ("ns/ds", "node-3", "pod-07", "ds-<hash>"), so that
// they read the same from one run to the next. [Options] holds the knobs:
// sizes, label, taint and toleration pools, a rollout in progress, failed
// and terminating pods, orphans and strays. The zero Options generate tidy
// snapshots.
//
//   - [Snapshots]: a whole snapshot ([Snapshot]: a
//     [github.com/daemonplan/daemonplan.Input] and the current revision's
//     hash);
//   - [DaemonSet], [Node], [Pod], [Revisions]: its parts;
//   - [Permutation]: the same input in another order;
//   - [Workload], [Containers], [ResourceList]: containers, sidecars, requests,
//     limits, host ports, overhead and pod-level resources for a template.
//
// # Checkers
//
// Each takes the input of one sync and its plan and returns nil or
// [Findings], one [Finding] per broken rule naming its [Invariant];
// [Violated] tests for one. They never change their arguments, and panic only
// when Input.DaemonSet is nil (Sync refuses such an input). Each promises
// what its doc lists, no more:
//
//   - [CheckPlan]: [github.com/daemonplan/daemonplan.CheckPlan]'s rules,
//     reported as [Sorted] (every list sorted, without repeats), [Ownership]
//     (adoptions, releases, deletes, relabels and revision writes touch only
//     what the DaemonSet claims or may claim; nothing of another controller,
//     namespace or selector), [Eligibility] (creates only on nodes that should
//     run the pod) and [Stop] (no write for a DaemonSet being deleted or after
//     a failed history); then the four checkers below.
//   - [CheckPodsPerNode] ([PodsPerNode]): after the plan, at most one running
//     pod per node, or one new and one old with surge.
//   - [CheckBudgets] ([MaxUnavailable], [MaxSurge], [Surplus]): a
//     rolling-update pass never takes more available pods down than
//     maxUnavailable allows, never surges beyond maxSurge, and with surge never
//     lowers availability below the desired count.
//   - [CheckStatus] ([StatusRecount]): the status equals a recount of the
//     snapshot, and is written exactly when upstream writes it.
//   - [CheckStop] ([Stop]): beyond
//     [github.com/daemonplan/daemonplan.CheckPlan], a sync that fails or waits
//     on expectations creates no pod and cleans up no history, and one that
//     stops early writes no status.
//   - [CheckConverged] ([Converged]): a settled cluster runs exactly one
//     available, up-to-date pod on every node that should run one.
//   - [CheckPermutation] ([Determinism]): a [SyncFunc] returns the same plan
//     for a permuted input.
//   - [CheckSteps]: [CheckSync] over a sequence of syncs.
//
// # Driving a rollout
//
// [Sync] runs one sync of a [github.com/daemonplan/daemonplan/sim.Cluster] and
// checks it; [Rollout] repeats sync and clock advance until the rollout is
// done, checks every step and the converged end, and fails a [TB] (a *testing.T
// or a *rapid.T) on the first broken invariant.
//
// # A property test of your own
//
// Draw a snapshot, plan it, check the plan:
//
//	func TestMyPlanner(t *testing.T) {
//		rapid.Check(t, func(t *rapid.T) {
//			c := plantest.Snapshots(plantest.Options{Rollout: true, Orphans: true}).Draw(t, "snapshot")
//			p, err := daemonplan.Sync(c.Input, daemonplan.Options{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			if err := plantest.CheckSync(c.Input, p); err != nil {
//				t.Fatal(err)
//			}
//		})
//	}
//
// Example (propertyTest) runs that property with rapid against
// [github.com/daemonplan/daemonplan.Sync], where it holds, and against a
// planner with a bug, where it fails and names the invariant broken; the
// package example shows what a broken plan reports. In this package's
// tests, TestSyncInvariants is that property for daemonplan.Sync, and
// TestSyncInvariantsFailOnBrokenPlanners runs it against planners with one
// bug each (maxUnavailable ignored, duplicates kept, a foreign pod
// deleted, ...) and requires that it fails, naming the broken invariant.
package plantest
