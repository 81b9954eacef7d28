package overhead

// SetForceExact makes every template query take the exact path, so that
// tests can check the fast path against it; it returns the undo.
func SetForceExact(on bool) func() {
	old := forceExact
	forceExact = on
	return func() { forceExact = old }
}
