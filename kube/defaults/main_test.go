package defaults

import (
	"testing"

	"github.com/daemonplan/daemonplan/internal/testsupport/rapidrun"
)

func TestMain(m *testing.M) { rapidrun.Main(m) }
