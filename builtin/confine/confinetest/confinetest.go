// Package confinetest is for tests of what runs commands in the kernel sandbox: it
// skips a test where the kernel has no usable Landlock, and fails it instead where
// the test run says the kernel must have one.
package confinetest

import (
	"os"
	"testing"

	"github.com/luatool/luatool/builtin/confine"
)

// RequireEnv is the variable that, set to 1 (as CI does, whose kernel has
// Landlock), makes a missing sandbox fail a test rather than skip it.
const RequireEnv = "LUATOOL_REQUIRE_LANDLOCK"

// Landlock returns the Landlock ABI commands run under. Without a usable one it
// skips tb, or fails it when RequireEnv is 1.
func Landlock(tb testing.TB) int {
	tb.Helper()
	abi, err := Available()
	if err != nil {
		tb.Fatal(err)
	}
	if abi == 0 {
		_, why := confine.Landlock()
		tb.Skipf("no sandbox: %v", why)
	}
	return abi
}

// Available returns the Landlock ABI commands run under, or 0 when there is none;
// the error says that RequireEnv is 1 and why there is none. It is the answer a
// test script's condition needs.
func Available() (int, error) {
	abi, err := confine.Landlock()
	if err == nil {
		return abi, nil
	}
	if os.Getenv(RequireEnv) == "1" {
		return 0, &requiredError{err}
	}
	return 0, nil
}

// requiredError is the sandbox's absence where RequireEnv asks for it.
type requiredError struct{ err error }

func (e *requiredError) Error() string { return RequireEnv + "=1 and " + e.err.Error() }
