package extdata

import (
	"os"
	"testing"
)

// LongVar is the environment variable that sets how long the long tests run (the
// reload soak, the rounds of the lost-update test, the biggest workloads of the
// hostile suite, the MCP stdio flood): 1 runs them at full length, as CI does; unset
// or 0 runs them short, so that go test ./... on a developer's machine stays quick.
// Each such test says in its doc comment what its two lengths are.
const LongVar = "LUATOOL_LONG_TESTS"

// Long returns full when LongVar is 1 and short when it is unset or 0. Any other
// value fails t: a misspelt setting must not shorten a run unseen. It records the
// test's use of the setting (Record, as LongVar), for a long test runs differently
// on a newcomer's machine than in CI: the fresh-clone test runs it again, short.
func Long[T any](t testing.TB, short, full T) T {
	t.Helper()
	Record(t, LongVar)
	switch v := os.Getenv(LongVar); v {
	case "", "0":
		return short
	case "1":
		return full
	default:
		t.Fatalf("%s=%q: want 1 (the long tests at full length) or 0 (short)", LongVar, v)
		return short
	}
}
