// Package extdata locates the test data that lives outside the repository, so that a
// test needing it runs when it is there, skips with a message saying how to get it
// when it is not, and fails instead of skipping where the data is required.
//
// Chiefly, that data is the JSON Schema Test Suite
// (https://github.com/json-schema-org/JSON-Schema-Test-Suite), the specification's
// conformance tests, which the engine's validator is checked against. It is another
// project's repository, so it is not copied here. JSONSchemaSuite finds it at
// $LUATOOL_JSON_SCHEMA_SUITE when that is set, else at
// ../shared/testdata/JSON-Schema-Test-Suite beside the module root. On a fresh clone it
// is at neither, and the tests that need it skip, so that `go test ./...` passes;
// LUATOOL_REQUIRE_TEST_DATA=1, which CI sets, turns those skips into failures, so that
// missing data can never pass for green. Tests that find other data themselves (the
// differential oracle's cases) end through Unavailable in the same way.
//
// Long gives the length of the long tests, short unless CI's setting (LongVar) asks
// for their full length.
//
// Record notes which tests used something from outside the repository (that suite, a
// program CI installs, such as redis-server, or CI's setting of the long tests'
// length), so that the fresh-clone test can run exactly those again without it: each
// test missing data or a program must skip saying so, each long test, run short,
// must pass.
//
// The package is for tests and their helper packages only: it imports testing.
package extdata

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	// RecordVar names the file Record appends to; unset, Record records nothing. It
	// must be absolute, as SuiteVar.
	RecordVar = "LUATOOL_TEST_OUTSIDE_LOG"
)

// SuiteName is the suite's name, as JSONSchemaSuite records it and as its message
// says it was not found.
const SuiteName = "JSON Schema Test Suite"

// SuiteMissing opens the message with which JSONSchemaSuite skips (or fails) a test
// when the suite is not found.
const SuiteMissing = SuiteName + " not found"

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
	return moduleRootOf(wd)
}

// moduleRootOf returns the directory of the go.mod that governs wd.
func moduleRootOf(wd string) (string, error) {
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
		Record(t, SuiteName)
		return dir
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatalf("looking for the JSON Schema Test Suite beside the module root: %v", err)
	}
	dir := filepath.Join(root, suiteBeside)
	if isSuite(dir) {
		Record(t, SuiteName)
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

// Program returns the path of the program name, which the running test needs from
// outside the repository, and records its use (Record). Without it on PATH it skips
// the test saying so and how to install it (install: "on Debian: apt-get install -y
// NAME"), or fails it when the variable requireVar is 1, as CI sets it for each
// program it installs.
func Program(t testing.TB, name, requireVar, install string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		msg := fmt.Sprintf("%s is not installed (%s)", name, install)
		if os.Getenv(requireVar) == "1" {
			t.Fatalf("%s, and %s=1 requires it", msg, requireVar)
		}
		t.Skip(msg)
	}
	Record(t, name)
	return bin
}

// Cases returns the line with which a suite test reports how many cases it ran, detail
// saying which.
func Cases(n int, detail string) string {
	return fmt.Sprintf("%s: %d cases ran (%s)", SuiteName, n, detail)
}

// A Use is one line of the file Record appends to: a test that used something from
// outside the repository.
type Use struct {
	// Dir is the test's package directory, relative to the module root, with slashes
	// ("tests", "session/redisstore").
	Dir string
	// Test is the test's full name, as t.Name() gives it.
	Test string
	// What is what it used, named as the message of the test's skip names it when it
	// is missing ("redis-server", SuiteName).
	What string
}

// startDir is the working directory the test binary started in, its package's
// directory: a test may change directories (t.Chdir) before it calls Record.
var startDir, startDirErr = os.Getwd()

// Record notes, in the file named by RecordVar when it is set, that the running test
// used what, found outside the repository. Tests call it through the helper that
// finds the thing (JSONSchemaSuite, redistest.Start), right after finding it. Each line
// is appended by one write to a file opened for appending, so that the test binaries
// of a go test run, and parallel tests, can share the file.
func Record(t testing.TB, what string) {
	t.Helper()
	file := os.Getenv(RecordVar)
	if file == "" {
		return
	}
	if !filepath.IsAbs(file) {
		t.Fatalf("%s=%s must be an absolute path (go test runs each package in its own directory)", RecordVar, file)
	}
	if startDirErr != nil {
		t.Fatalf("recording the use of %s: %v", what, startDirErr)
	}
	root, err := moduleRootOf(startDir)
	if err != nil {
		t.Fatalf("recording the use of %s: %v", what, err)
	}
	dir, err := filepath.Rel(root, startDir)
	if err != nil {
		t.Fatalf("recording the use of %s: %v", what, err)
	}
	line := strings.Join([]string{filepath.ToSlash(dir), t.Name(), what}, "\t") + "\n"
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatalf("recording the use of %s: %v", what, err)
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("recording the use of %s: %v", what, err)
	}
}

// ReadUses reads the file Record wrote, in order, each use once.
func ReadUses(file string) ([]Use, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var uses []Use
	seen := map[Use]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == "" || f[1] == "" || f[2] == "" {
			return nil, fmt.Errorf("%s:%d: %q is not a use Record writes (directory, test and what, separated by tabs)", file, i+1, line)
		}
		u := Use{Dir: f[0], Test: f[1], What: f[2]}
		if !seen[u] {
			seen[u] = true
			uses = append(uses, u)
		}
	}
	return uses, nil
}
