package placement

import "github.com/daemonplan/daemonplan/api"

// olderPod is upstream's podByCreationTimestampAndPhase order (docs/manage.md, M5):
// scheduled pods first, then older creation time, then smaller name. Despite
// upstream's name, phase plays no part.
func olderPod(a, b *api.Pod) int {
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
