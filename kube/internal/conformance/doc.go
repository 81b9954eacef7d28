// Package conformance is test support for the conformance cases in
// kube/testdata/conformance/cases, cases-v1.37 and found-v1.37: each case
// is one cluster, the instant of one sync, and what the upstream DaemonSet
// controller (v1.34.4, v1.37.2) did in that sync, in the plan schema of
// the cases' README.
//
// It owns Expected (an expected.json: the schema of package schema plus
// the cases' alternatives), the loading of cases
// (Cases, CasesDir) and the comparison rules (Compare). It does not plan:
// callers produce the plan to compare.
//
// Compare implements the README's rules:
//
//  1. nodes: matched by name; only name, shouldRun and
//     shouldContinueRunning are compared;
//  2. create: entries compared by node, labels and tolerations (in order);
//     delete: entries compared by pod only;
//  3. for a non-deterministic case (deterministic: false), create and
//     delete each must have upstream's length, every entry must be one that
//     upstream chose in some outcome (expected.json or an alternative), and
//     every entry that upstream chose in all outcomes must be present;
//  4. daemonSet, adopt, release, relabel, revisions, status and
//     rolloutStatus are compared exactly (order included);
//  5. errors: compared only for being empty or not;
//  6. warnings, reasons, messages, alternatives and unmapped are not
//     compared;
//  7. the plan under test must follow the schema: every list present and
//     not null, and create, delete, nodes, adopt, release and relabel
//     sorted as the README states.
package conformance
