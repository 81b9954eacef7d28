// Package differential holds differential tests that check daemonplan's
// matchers against the Kubernetes helper libraries they reimplement:
//
//   - selector.Compile and selector.Parse against metav1.LabelSelectorAsSelector
//     and labels.Parse from k8s.io/apimachinery;
//   - selector.CompileNode against nodeaffinity.GetRequiredNodeAffinity from
//     k8s.io/component-helpers;
//   - taints.Tolerates and taints.Set.FirstUntolerated against
//     corev1.Toleration.ToleratesTaint and FindMatchingUntoleratedTaint;
//   - resource.Parse, Quantity.String, Cmp, Add, Sub and the rounded values
//     against apimachinery's resource.Quantity, on generated texts and a
//     table of edge cases, with each documented divergence pinned;
//   - field.Error messages, and the label-syntax and toleration-value
//     problems, against apimachinery's wording;
//   - resource.PodRequests and EffectiveRequests against component-helpers'
//     resource.PodRequests on generated pods (the latter after our
//     transcription of the API server's defaulting).
//
// The benchmarks in bench_test.go run resource and apimachinery or
// component-helpers in the same run (benchstat -col /impl).
//
// Inputs are generated with pgregory.net/rapid from small alphabets that mix
// valid and invalid keys, values and operators; every property requires full
// agreement. The package has no non-test code.
package differential
