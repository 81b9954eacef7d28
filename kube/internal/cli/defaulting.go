package cli

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// undefaulted lists the fields of a pod template's spec that the API
// server's defaulting always sets and spec leaves empty: a template that
// no API server stored (a new container in a manifest) hashes otherwise
// than the one the API server stores. The list is of the fields defaulted
// unconditionally; daemonplan does not apply the defaulting itself
// (docs/kubernetes-versions.md).
func undefaulted(spec *corev1.PodSpec) []string {
	var out []string
	base := "spec.template.spec."
	if spec.RestartPolicy == "" {
		out = append(out, base+"restartPolicy")
	}
	if spec.DNSPolicy == "" {
		out = append(out, base+"dnsPolicy")
	}
	if spec.SchedulerName == "" {
		out = append(out, base+"schedulerName")
	}
	if spec.TerminationGracePeriodSeconds == nil {
		out = append(out, base+"terminationGracePeriodSeconds")
	}
	if spec.SecurityContext == nil {
		out = append(out, base+"securityContext")
	}
	check := func(list string, cs []corev1.Container) {
		for i := range cs {
			at := fmt.Sprintf("%s%s[%d].", base, list, i)
			if cs[i].TerminationMessagePath == "" {
				out = append(out, at+"terminationMessagePath")
			}
			if cs[i].TerminationMessagePolicy == "" {
				out = append(out, at+"terminationMessagePolicy")
			}
			if cs[i].ImagePullPolicy == "" {
				out = append(out, at+"imagePullPolicy")
			}
		}
	}
	check("initContainers", spec.InitContainers)
	check("containers", spec.Containers)
	return out
}
