package scripts_test

import (
	"os"
	"testing"

	"github.com/luatool/luatool/sandbox"
)

// TestMain lets the test binary serve as the shell sandbox's launcher, as a
// program's main must (see package sandbox).
func TestMain(m *testing.M) {
	sandbox.Init()
	os.Exit(m.Run())
}
