package main

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan"
)

// gone reports whether the API server no longer has ds as the informers
// show it: not found, found under another UID (deleted and created
// again), or being deleted. The informers may lag behind a deletion the
// garbage collector has already acted on; a write planned on their view
// would recreate a revision or a pod for a DaemonSet that is gone. The
// read is a quorum read (no resourceVersion): it sees every deletion
// before it.
func (c *Controller) gone(ctx context.Context, ds *appsv1.DaemonSet) (bool, error) {
	live, err := c.Client.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return live.UID != ds.UID || live.DeletionTimestamp != nil, nil
}

// changesOwners reports whether applying p changes what the DaemonSet
// owns: creates, adopts or releases a revision or a pod. Only those
// writes need the DaemonSet read first (gone): for a DaemonSet that is
// gone they would leave objects the garbage collector does not remove
// (owned by nothing, or created while it orphans them), or take one out of
// its reach. The plan's other writes are held to the UID and
// resourceVersion of what they change (deletes, relabels, revision
// updates, the status), which the garbage collector's work on a deleted
// DaemonSet changes: they fail rather than act on it, and cost no read, as
// upstream's writes read nothing first.
func changesOwners(p daemonplan.Plan) bool {
	r := p.Revisions
	return len(r.Create)+len(r.Adopt)+len(r.Release)+len(p.Adopt)+len(p.Release)+len(p.Create) > 0
}
