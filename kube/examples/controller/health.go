package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// healthCheck is one check of the health endpoint: nil when healthy.
type healthCheck struct {
	name  string
	check func(*http.Request) error
}

// healthHandler serves /healthz, healthy (200, "ok") when every check
// passes and 500 with the failed checks' reasons otherwise, and
// /healthz/NAME, the one check NAME, so that a liveness probe can leave
// out a check (informer-sync, long on a large cluster's first list) that
// a readiness probe wants. ?verbose lists every check with its result.
func healthHandler(checks ...healthCheck) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/healthz", healthResult(checks))
	for _, c := range checks {
		mux.Handle("/healthz/"+c.name, healthResult([]healthCheck{c}))
	}
	return mux
}

func healthResult(checks []healthCheck) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		failed := false
		for _, c := range checks {
			if err := c.check(r); err != nil {
				failed = true
				fmt.Fprintf(&b, "[-]%s failed: %v\n", c.name, err)
			} else {
				fmt.Fprintf(&b, "[+]%s ok\n", c.name)
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		switch {
		case failed:
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, b.String(), "healthz check failed\n")
		case r.URL.Query().Has("verbose"):
			fmt.Fprint(w, b.String(), "healthz check passed\n")
		default:
			fmt.Fprint(w, "ok")
		}
	}
}

// errInformersNotSynced fails the informer-sync check while the
// controller waits for its informers' first lists.
var errInformersNotSynced = errors.New("the informers have not synced their first lists yet")

// informersSynced is the informer-sync check: healthy when the controller
// runs with its informers synced, or does not run (a replica standing by
// for the lease holds no informers); failed while it waits for them.
func (c *Controller) informersSynced(*http.Request) error {
	if c.phase.Load() == phaseSyncing {
		return errInformersNotSynced
	}
	return nil
}

// The controller's phases, for the informer-sync check.
const (
	phaseStopped int32 = iota // not running: before Run, after it, or standing by for the lease
	phaseSyncing              // running, waiting for the informers' first lists
	phaseRunning              // running, informers synced
)
