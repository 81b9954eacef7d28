package daemonplan

import (
	"container/heap"
	"time"
)

// timer asks for node ns to be refreshed once the clock reaches at: a pod
// there becomes available then.
type timer struct {
	at time.Time
	ns *nodeState
}

// timers is a min-heap of timers by time. A timer may be stale (its node
// changed or went since); refreshing a node too often is harmless.
type timers []timer

func (h timers) Len() int           { return len(h) }
func (h timers) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h timers) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timers) Push(x any)        { *h = append(*h, x.(timer)) }
func (h *timers) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = timer{}
	*h = old[:len(old)-1]
	return t
}

func (h *timers) push(at time.Time, ns *nodeState) { heap.Push(h, timer{at: at, ns: ns}) }

// due pops the timers due at or before now.
func (h *timers) due(now time.Time, yield func(*nodeState)) {
	for h.Len() > 0 && !(*h)[0].at.After(now) {
		yield(heap.Pop(h).(timer).ns)
	}
}
