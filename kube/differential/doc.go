// Package differential holds differential tests that check daemonplan's
// matchers against the Kubernetes helper libraries they reimplement:
//
//   - selector.Compile and selector.Parse against metav1.LabelSelectorAsSelector
//     and labels.Parse from k8s.io/apimachinery;
//   - selector.CompileNode against nodeaffinity.GetRequiredNodeAffinity from
//     k8s.io/component-helpers;
//   - taints.Toleration.Tolerates and taints.Set.FirstUntolerated against
//     corev1.Toleration.ToleratesTaint and FindMatchingUntoleratedTaint.
//
// Inputs are generated with pgregory.net/rapid from small alphabets that mix
// valid and invalid keys, values and operators; every property requires full
// agreement. The package has no non-test code.
package differential
