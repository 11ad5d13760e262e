// Package longtest says how long the long tests run: the reload soak, the rounds of
// the lost-update test, the biggest workloads of the hostile suite. By default they
// run short, so that go test ./... on a developer's machine stays quick; CI sets
// LUATOOL_LONG_TESTS=1 and runs them at full length. Each such test says in its doc
// comment what its two lengths are.
//
// The package is for tests only: it imports testing.
package longtest

import (
	"os"
	"testing"
)

// Var is the environment variable that sets the length: 1 runs the long tests at
// full length; unset or 0 runs them short.
const Var = "LUATOOL_LONG_TESTS"

// Pick returns full when Var is 1 and short when it is unset or 0. Any other value
// fails t: a misspelt setting must not shorten a run unseen.
func Pick[T any](t testing.TB, short, full T) T {
	t.Helper()
	switch v := os.Getenv(Var); v {
	case "", "0":
		return short
	case "1":
		return full
	default:
		t.Fatalf("%s=%q: want 1 (the long tests at full length) or 0 (short)", Var, v)
		return short
	}
}
