package placement

import "github.com/daemonplan/daemonplan/api"

// OlderPod is upstream's podByCreationTimestampAndPhase order
// (docs/manage.md, M5), the order of a [Bucket]: scheduled pods first, then
// older creation time, then smaller name. Despite upstream's name, phase
// plays no part. a and b must not be nil.
func OlderPod(a, b *api.Pod) int {
	if a == nil || b == nil {
		panic("placement.OlderPod: nil pod")
	}
	as, bs := a.NodeName != "", b.NodeName != ""
	if as != bs {
		if as {
			return -1
		}
		return 1
	}
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	switch {
	case a.Name < b.Name:
		return -1
	case a.Name > b.Name:
		return 1
	}
	return 0
}
