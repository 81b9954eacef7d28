package daemonplan

// Planner runs syncs as [Sync] does, and keeps its memory from one sync to
// the next: a controller that plans the same DaemonSet again and again
// allocates per sync in proportion to the plan's writes, not to the number
// of nodes and pods. Its plans are exactly Sync's.
//
// Nodes that carry a Version ([api.Node.Version]) are decided once: the
// Planner keeps what each decided, by name, and takes it at the next sync
// while the node's name and Version and the DaemonSet's placement (template
// nodeName, nodeSelector, required node affinity, tolerations, hostNetwork)
// and the placement options stay the same. Nodes without a Version are
// decided at every sync.
//
// The per-node lists of a plan, [Plan.Nodes] and [Plan.Keep], are the
// Planner's: they stay valid until its next [Sync], which overwrites them.
// Copy them to keep them longer. Every other field of a plan is the
// caller's.
//
// A Planner is not safe for concurrent use; use one per goroutine. Make
// one with [NewPlanner]: a nil *Planner is not usable, and its methods panic.
type Planner struct {
	opts Options
	ws   workspace
}

// NewPlanner returns a [Planner] that syncs with opts.
func NewPlanner(opts Options) *Planner { return &Planner{opts: opts} }

// Sync plans one sync of in, as Sync(in, opts) does.
func (p *Planner) Sync(in Input) (Plan, error) { return runSync(in, p.opts, &p.ws) }
