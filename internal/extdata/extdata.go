// Package extdata locates the test data that lives outside the repository, so that a
// test needing it runs when it is there, skips with a message saying how to get it
// when it is not, and fails instead of skipping where the data is required.
//
// Today that data is the JSON Schema Test Suite
// (https://github.com/json-schema-org/JSON-Schema-Test-Suite), the specification's
// conformance tests, which the engine's validator is checked against. It is another
// project's repository, so it is not copied here. JSONSchemaSuite finds it at
// $LUATOOL_JSON_SCHEMA_SUITE when that is set, else at
// ../shared/testdata/JSON-Schema-Test-Suite beside the module root. On a fresh clone it
// is at neither, and the tests that need it skip, so that `go test ./...` passes;
// LUATOOL_REQUIRE_TEST_DATA=1, which CI sets, turns those skips into failures, so that
// missing data can never pass for green.
//
// The package is for tests only: it imports testing.
package extdata

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// The environment variables the package reads.
const (
	// SuiteVar names the directory of the JSON Schema Test Suite. It must be absolute,
	// since go test runs each package in its own directory.
	SuiteVar = "LUATOOL_JSON_SCHEMA_SUITE"
	// RequireVar set to 1 makes missing test data a failure instead of a skip; 0 or
	// unset lets the tests skip.
	RequireVar = "LUATOOL_REQUIRE_TEST_DATA"
)

// SuiteMissing opens the message with which JSONSchemaSuite skips (or fails) a test
// when the suite is not found.
const SuiteMissing = "JSON Schema Test Suite not found"

const suiteURL = "https://github.com/json-schema-org/JSON-Schema-Test-Suite"

// suiteBeside is where the suite is looked for when SuiteVar is unset, relative to
// the module root.
var suiteBeside = filepath.Join("..", "shared", "testdata", "JSON-Schema-Test-Suite")

// ModuleRoot returns the directory of the go.mod that governs the working directory,
// found by walking up from it, as the go command does.
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no go.mod in %s or any directory above it", wd)
		}
	}
}

// JSONSchemaSuite returns the directory of the JSON Schema Test Suite (the one holding
// tests/draft2020-12 and the other drafts). When the suite is not found it skips t, or
// fails it when RequireVar is 1, with a message naming the places it looked at and how
// to get the suite. A SuiteVar that is set but relative, or names a directory without
// the suite, fails t: someone asked for that directory, and skipping would hide the
// mistake.
func JSONSchemaSuite(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv(SuiteVar); dir != "" {
		if !filepath.IsAbs(dir) {
			t.Fatalf("%s=%s must be an absolute path (go test runs each package in its own directory)", SuiteVar, dir)
		}
		if !isSuite(dir) {
			t.Fatalf("%s=%s does not hold the JSON Schema Test Suite (it has no tests directory); point it at a clone of %s", SuiteVar, dir, suiteURL)
		}
		return dir
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatalf("looking for the JSON Schema Test Suite beside the module root: %v", err)
	}
	dir := filepath.Join(root, suiteBeside)
	if isSuite(dir) {
		return dir
	}
	Unavailable(t,
		fmt.Sprintf("%s (looked at $%s, which is unset, and %s beside the module root, %s)", SuiteMissing, SuiteVar, suiteBeside, dir),
		fmt.Sprintf("The suite is the JSON Schema specification's conformance tests, kept in its own repository; get it with: git clone %s and set %s=/path/to/it (or clone it to %s)", suiteURL, SuiteVar, dir))
	return ""
}

// isSuite reports whether dir looks like a checkout of the suite.
func isSuite(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "tests"))
	return err == nil && fi.IsDir()
}

// Unavailable ends t because something it needs from outside the repository is not
// there: missing says what and where, hint how to get it. It skips t, or fails it when
// RequireVar is 1. A RequireVar other than "", 0 or 1 fails t too, since a misspelt
// requirement must not turn into a skip.
func Unavailable(t testing.TB, missing, hint string) {
	t.Helper()
	switch v := os.Getenv(RequireVar); v {
	case "", "0":
		t.Skipf("%s; skipping. %s", missing, hint)
	case "1":
		t.Fatalf("%s, and %s=1 requires it. %s", missing, RequireVar, hint)
	default:
		t.Fatalf("%s=%q: want 1 (missing test data fails) or 0 (it skips); meanwhile: %s. %s", RequireVar, v, missing, hint)
	}
}

// Cases returns the line with which a suite test reports how many cases it ran, detail
// saying which; ParseCases reads it back.
func Cases(n int, detail string) string {
	return fmt.Sprintf("JSON Schema Test Suite: %d cases ran (%s)", n, detail)
}

var casesLine = regexp.MustCompile(`JSON Schema Test Suite: (\d+) cases ran \(`)

// ParseCases returns the count in a line written with Cases, and whether the line
// holds one.
func ParseCases(line string) (int, bool) {
	m := casesLine.FindStringSubmatch(line)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}
