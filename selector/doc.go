// Package selector decides which labels and nodes a Kubernetes selector
// picks, as the DaemonSet controller (v1.34 to v1.37) and its helper
// libraries do (apimachinery labels and meta/v1 validation,
// component-helpers nodeaffinity), without an API server.
//
// # What it owns
//
//   - Label selectors ([github.com/daemonplan/daemonplan/api.LabelSelector],
//     the DaemonSet's spec.selector): compilation into a [Selector], checked as
//     the API checks them.
//   - The kubectl -l string syntax: [Parse] and [Selector.String], with its
//     three extra operators [Equals], [DoubleEquals] and [NotEquals].
//   - Node selection of a pod template: spec.nodeSelector AND the required
//     node affinity ([github.com/daemonplan/daemonplan/api.NodeSelector]), with
//     upstream's lazy handling of malformed terms ([CompileNode],
//     [NodeMatcher]).
//
// The selector types themselves, and their strict API validation
// ([github.com/daemonplan/daemonplan/api.ValidateLabelSelector],
// [github.com/daemonplan/daemonplan/api.ValidateNodeSelector], label key and
// value syntax), belong to package api, which every package reads. It does not
// own taints and tolerations (package taints), preferred node affinity, pod
// (anti-)affinity, field selectors other than a node's metadata.name, or where
// validation errors are rooted: every path is relative to the value validated
// ("matchExpressions[0].key"), and the caller places it with
// [github.com/daemonplan/daemonplan/field.ErrorList.Prefix] ("spec.selector").
// Nothing here logs, allocates while matching, or keeps a reference to its
// inputs.
//
// # Entry points
//
//   - Compile(*api.LabelSelector) (Selector, error).
//   - Parse(string) (Selector, error), failing with a [*ParseError];
//     [Everything], [Nothing], [FromSet].
//   - [Selector]: Matches, MatchesNothing, Empty, String, Requirements, Equal;
//     [Requirement.Matches] for a single requirement.
//   - CompileNode(nodeSelector, *api.NodeSelector) NodeMatcher, then
//     NodeMatcher.Match(nodeName, labels) (bool, Mismatch) per node;
//     [NodeMatcher.Mismatches] for every failing nodeSelector key and, per
//     affinity term, every failing requirement (it allocates: for
//     explaining a decision, not for making one); [NodeMatcher.Terms] for
//     the same constraint as an OR of [NodeTerm]s, for callers that reason
//     about sets of nodes.
//
// [Compile] once, match many: [Selector] and [NodeMatcher] are immutable
// values, safe for concurrent use, whose Matches and Match do not allocate.
//
// # Label selectors
//
//  1. A nil [*github.com/daemonplan/daemonplan/api.LabelSelector] matches
//     nothing ([Compile] returns the zero [Selector], for which MatchesNothing
//     is true).
//  2. A non-nil one with no matchLabels and no matchExpressions matches
//     everything (Empty is true). The DaemonSet API rejects it, and listers
//     skip it when mapping pods to DaemonSets; that is the caller's rule.
//  3. Otherwise each matchLabels pair is a "key=value" requirement, each
//     expression a requirement, and a label set matches when every
//     requirement does ([Requirement.Matches] lists the operators' rules).
//  4. A missing key never satisfies In, "=", Exists, Gt or Lt, and always
//     satisfies NotIn, "!=" and DoesNotExist.
//
// # Node selection
//
//  1. spec.nodeSelector: every key must be a node label with that exact
//     value; a nil or empty map does not constrain.
//  2. A nil required node affinity does not constrain.
//  3. A non-nil one needs at least one matching term; with no terms, or
//     only empty terms, it matches no node.
//  4. A malformed term matches no node but does not stop the other terms
//     from matching ([NodeMatcher.ParseErrors] tells what was wrong).
//  5. Both 1 and 3 must hold; a nodeSelector failure is reported first.
//
// [github.com/daemonplan/daemonplan/api.ValidateNodeSelector] is the stricter
// API-server check of the same input; [CompileNode] accepts everything and
// degrades as the controller does.
package selector
