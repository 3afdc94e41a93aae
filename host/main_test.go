package host

import (
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestMain removes the binaries the tests build (mcpscope for the interop tests).
func TestMain(m *testing.M) { testutil.Main(m) }
