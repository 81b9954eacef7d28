// Package rounds tells a long property test how many times to run rapid's
// checks: a default, fewer under -short, and an environment variable for a
// longer search. It is test support and imports only the standard library.
package rounds

import (
	"os"
	"strconv"
	"testing"
)

// Of returns the number in the environment variable env when it is a
// positive integer, else short under go test -short, else def.
func Of(env string, def, short int) int {
	if n, err := strconv.Atoi(os.Getenv(env)); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return short
	}
	return def
}
