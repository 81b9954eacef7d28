package scratch

// Arena hands out string slices that stay valid until Reset: the results
// of placement's Index.Keep. After a Reset it reuses its largest chunk,
// grown to what the previous snapshot needed, so that a Cluster planning
// again and again stops allocating for them. The zero Arena is ready.
type Arena struct {
	buf  []string
	used int // strings handed out since the last reset
}

// Alloc returns an empty slice with room for n strings. Appending more than
// n allocates a separate array, as append does.
func (a *Arena) Alloc(n int) []string {
	a.used += n
	if a.buf == nil || cap(a.buf)-len(a.buf) < n {
		a.buf = make([]string, 0, n)
	}
	s := a.buf[len(a.buf) : len(a.buf) : len(a.buf)+n]
	a.buf = a.buf[:len(a.buf)+n]
	return s
}

// Reset makes every slice handed out reusable.
func (a *Arena) Reset() {
	if a.used > cap(a.buf) {
		a.buf = make([]string, 0, a.used)
	}
	a.buf, a.used = a.buf[:0], 0
}

// Forget clears the strings of every slice handed out, so that the arena
// keeps none of them alive, and keeps its memory.
func (a *Arena) Forget() { clear(a.buf[:cap(a.buf)]) }
