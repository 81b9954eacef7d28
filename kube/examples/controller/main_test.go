package main

import (
	"testing"

	"github.com/daemonplan/daemonplan/internal/testsupport/rapidrun"
)

// TestMain turns rapid's fail files off unless asked for them
// (docs/development.md, "Property tests").
func TestMain(m *testing.M) { rapidrun.Main(m) }
