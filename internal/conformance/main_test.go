package conformance_test

import (
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestMain removes the binaries the tests build (testutil.Build requires it).
func TestMain(m *testing.M) { testutil.Main(m) }
