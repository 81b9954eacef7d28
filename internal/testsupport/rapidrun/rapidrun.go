// Package rapidrun is the TestMain of every package whose tests use
// pgregory.net/rapid (docs/development.md, "Property tests").
//
// When a property fails, rapid writes the failing case to a fail file under
// testdata/rapid/ and replays every such file first on each later run: a
// property that failed once on a user's machine (a rare case found by a
// random search) would make every later run of that test fail until the
// file, which git ignores, is deleted by hand. Main turns the fail files
// off unless asked for them, so that a failure is reported (loudly, with
// the -rapid.seed that reproduces it) and nothing is left behind:
//
//   - by default, -rapid.nofailfile is set;
//   - RAPID_NOFAILFILE=false in the environment, or -rapid.nofailfile=false
//     on the command line, asks for fail files as rapid writes them.
//
// It imports only the standard library: the flag is found by name, as
// rapid registers it in the test binary.
package rapidrun

import (
	"flag"
	"os"
	"testing"
)

// Flag is rapid's flag that turns fail files off, and Env the environment
// variable rapid reads it from.
const (
	Flag = "rapid.nofailfile"
	Env  = "RAPID_NOFAILFILE"
)

// Main parses the command line, turns rapid's fail files off unless asked
// for them (Configure), runs the tests and exits with their status. A
// package's TestMain is just:
//
//	func TestMain(m *testing.M) { rapidrun.Main(m) }
func Main(m *testing.M) {
	flag.Parse()
	if err := Configure(flag.CommandLine, os.LookupEnv); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// Configure sets Flag on fs to true unless it was set on the command line
// or lookup finds Env. It fails if fs has no such flag (the package does
// not use rapid).
func Configure(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	if fs.Lookup(Flag) == nil {
		return errNoRapid
	}
	if _, ok := lookup(Env); ok {
		return nil
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == Flag })
	if set {
		return nil
	}
	return fs.Set(Flag, "true")
}

type rapidError string

func (e rapidError) Error() string { return string(e) }

const errNoRapid = rapidError("rapidrun: no -" + Flag + " flag: the test binary does not use pgregory.net/rapid")
