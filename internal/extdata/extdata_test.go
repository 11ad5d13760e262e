package extdata

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// recorder stands in for a test's testing.TB and keeps how it ended.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// suiteFor calls JSONSchemaSuite as a test would, and returns what it returned and how
// the test ended.
func suiteFor(t *testing.T) (string, *recorder) {
	r := &recorder{TB: t}
	var dir string
	done := make(chan struct{})
	go func() {
		defer close(done)
		dir = JSONSchemaSuite(r)
	}()
	<-done
	return dir, r
}

// module makes X/mod/go.mod with the working directory in X/mod/pkg, and returns X.
func module(t *testing.T) string {
	x := t.TempDir()
	if err := os.MkdirAll(filepath.Join(x, "mod", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(x, "mod", "go.mod"), []byte("module example.com/mod\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(x, "mod", "pkg"))
	// The suites these tests make are no use of outside data to record.
	t.Setenv(RecordVar, "")
	return x
}

func mkSuite(t *testing.T, dir string) string {
	if err := os.MkdirAll(filepath.Join(dir, "tests", "draft2020-12"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestJSONSchemaSuiteMissing(t *testing.T) {
	x := module(t)
	beside := filepath.Join(x, "shared", "testdata", "JSON-Schema-Test-Suite")
	t.Setenv(SuiteVar, "")
	for _, tc := range []struct {
		require      string
		skip, fail   bool
		wantInReason string
	}{
		{require: "", skip: true, wantInReason: "skipping"},
		{require: "0", skip: true, wantInReason: "skipping"},
		{require: "1", fail: true, wantInReason: RequireVar + "=1 requires it"},
		{require: "yes", fail: true, wantInReason: `want 1 (missing test data fails) or 0`},
	} {
		t.Setenv(RequireVar, tc.require)
		dir, r := suiteFor(t)
		reason := r.skipped + r.failed
		if dir != "" || (r.skipped != "") != tc.skip || (r.failed != "") != tc.fail {
			t.Errorf("%s=%q: returned %q, skipped %q, failed %q", RequireVar, tc.require, dir, r.skipped, r.failed)
		}
		for _, want := range []string{SuiteMissing, "$" + SuiteVar, beside, suiteURL, tc.wantInReason} {
			if !strings.Contains(reason, want) {
				t.Errorf("%s=%q: the reason %q does not say %q", RequireVar, tc.require, reason, want)
			}
		}
	}
}

func TestJSONSchemaSuiteBesideTheModuleRoot(t *testing.T) {
	x := module(t)
	want := mkSuite(t, filepath.Join(x, "shared", "testdata", "JSON-Schema-Test-Suite"))
	t.Setenv(SuiteVar, "")
	t.Setenv(RequireVar, "1")
	if dir, r := suiteFor(t); dir != want || r.skipped != "" || r.failed != "" {
		t.Errorf("returned %q (want %q), skipped %q, failed %q", dir, want, r.skipped, r.failed)
	}
}

func TestJSONSchemaSuiteFromTheVariable(t *testing.T) {
	x := module(t)
	mkSuite(t, filepath.Join(x, "shared", "testdata", "JSON-Schema-Test-Suite"))
	elsewhere := mkSuite(t, filepath.Join(x, "elsewhere"))
	t.Setenv(RequireVar, "")

	t.Setenv(SuiteVar, elsewhere)
	if dir, r := suiteFor(t); dir != elsewhere || r.skipped != "" || r.failed != "" {
		t.Errorf("%s=%s: returned %q, skipped %q, failed %q", SuiteVar, elsewhere, dir, r.skipped, r.failed)
	}

	// A variable that names no suite fails even though nothing requires the data, and
	// does not fall back to the directory beside the module root.
	for value, want := range map[string]string{
		"elsewhere":                     "must be an absolute path",
		filepath.Join(x, "mod"):         "does not hold the JSON Schema Test Suite",
		filepath.Join(x, "no-such-dir"): "does not hold the JSON Schema Test Suite",
	} {
		t.Setenv(SuiteVar, value)
		if dir, r := suiteFor(t); dir != "" || r.skipped != "" || !strings.Contains(r.failed, want) {
			t.Errorf("%s=%s: returned %q, skipped %q, failed %q (want it to say %q)", SuiteVar, value, dir, r.skipped, r.failed, want)
		}
	}
}

// Record appends what the running test used, with its package directory and name;
// ReadUses reads it back, each use once. JSONSchemaSuite records the suite it finds.
func TestRecord(t *testing.T) {
	log := filepath.Join(t.TempDir(), "outside.log")
	t.Setenv(RecordVar, log)
	Record(t, "redis-server")
	Record(t, "redis-server")
	t.Run("sub test", func(t *testing.T) { Record(t, "lua5.1") })
	x := module(t)
	t.Setenv(RecordVar, log) // module unsets it
	t.Setenv(SuiteVar, mkSuite(t, filepath.Join(x, "elsewhere")))
	if _, r := suiteFor(t); r.skipped != "" || r.failed != "" {
		t.Fatalf("skipped %q, failed %q", r.skipped, r.failed)
	}
	uses, err := ReadUses(log)
	if err != nil {
		t.Fatal(err)
	}
	want := []Use{
		{"internal/extdata", "TestRecord", "redis-server"},
		{"internal/extdata", "TestRecord/sub_test", "lua5.1"},
		{"internal/extdata", "TestRecord", SuiteName},
	}
	if !slices.Equal(uses, want) {
		t.Errorf("uses %v, want %v", uses, want)
	}

	t.Setenv(RecordVar, "outside.log")
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); Record(r, "lua5.1") }()
	<-done
	if !strings.Contains(r.failed, "must be an absolute path") {
		t.Errorf("a relative %s: failed %q", RecordVar, r.failed)
	}

	bad := filepath.Join(t.TempDir(), "bad.log")
	if err := os.WriteFile(bad, []byte("tests\tTestX\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadUses(bad); err == nil || !strings.Contains(err.Error(), bad+":1:") {
		t.Errorf("ReadUses of a line with two fields: %v", err)
	}
}
