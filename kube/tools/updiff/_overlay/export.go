package daemon

// This file is laid over the vendored k8s.io/kubernetes/pkg/controller/daemon
// by run.sh (go build -overlay): the harness needs to run one sync and to
// stop the controller, and the controller exports neither.

import (
	"context"

	apps "k8s.io/api/apps/v1"
)

// UpdiffSync runs one sync of the DaemonSet key ("namespace/name").
func (dsc *DaemonSetsController) UpdiffSync(ctx context.Context, key string) error {
	return dsc.syncHandler(ctx, key)
}

// UpdiffShutdown stops what the constructor started (work queues, event
// broadcaster), so that thousands of controllers do not leak goroutines.
func (dsc *DaemonSetsController) UpdiffShutdown() {
	dsc.queue.ShutDown()
	dsc.nodeUpdateQueue.ShutDown()
	dsc.eventBroadcaster.Shutdown()
}

// UpdiffGetPatch returns the data upstream stores in a ControllerRevision
// for ds, so that generated clusters can hold revisions an earlier sync
// would have made.
func UpdiffGetPatch(ds *apps.DaemonSet) ([]byte, error) { return getPatch(ds) }
