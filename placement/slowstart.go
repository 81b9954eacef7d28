package placement

// SlowStartInitialBatch is upstream's first create batch size.
const SlowStartInitialBatch = 1

// SlowStartBatches returns the batch sizes in which upstream issues n
// creates (upstream: syncNodes; docs/manage.md, M15): 1, then each batch
// twice the previous, the last one holding what remains. 10 gives 1, 2, 4,
// 3. A caller that mimics upstream creates one batch in parallel, and stops
// at the first batch with an error.
func SlowStartBatches(n int) []int {
	var out []int
	size := min(n, SlowStartInitialBatch)
	for n > 0 {
		out = append(out, size)
		n -= size
		size = min(2*size, n)
	}
	return out
}
