package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/internal/extdata"
)

// The environment variables of TestFreshClone.
const (
	// freshCloneTestVar set to 1 runs TestFreshClone, which is slow; .ci/run sets it.
	freshCloneTestVar = "LUATOOL_FRESH_CLONE_TEST"
	// freshCloneVar is set to 1 in the clone's own runs, so that their TestFreshClone
	// does not clone again.
	freshCloneVar = "LUATOOL_FRESH_CLONE"
)

// TestFreshClone clones the repository into a directory with nothing beside it, as a
// newcomer would, and runs the README's test command there: it must pass, and the tests
// that need data from outside the repository must skip saying the data is missing
// rather than fail or pass unseen. A second run in the clone, given the JSON Schema
// Test Suite, runs just those tests and must report a positive number of cases for each.
func TestFreshClone(t *testing.T) {
	if os.Getenv(freshCloneVar) == "1" {
		t.Skipf("%s=1: this is a fresh clone's own run", freshCloneVar)
	}
	if os.Getenv(freshCloneTestVar) != "1" {
		t.Skipf("slow (the whole README test command again, in a clone); set %s=1 to run it, as .ci/run does", freshCloneTestVar)
	}
	mod := cloneModule(t)
	command := readmeTestCommand(t, filepath.Join(mod, "README.md"))

	var needSuite []testID
	t.Run("without the suite", func(t *testing.T) {
		// -json only makes the output readable here; the tests run as the README says.
		args := slices.Insert(slices.Clone(command[1:]), 1, "-json")
		run := goTest(t, mod, cloneEnv(t), args)
		if run.failed {
			t.Fatalf("%s failed in a fresh clone:\n%s", strings.Join(command, " "), run.report())
		}
		reasons := map[testID]string{}
		for id, status := range run.status {
			if status != "skip" || !id.topLevel() {
				continue
			}
			for _, line := range run.output[id] {
				if strings.Contains(line, extdata.SuiteMissing) {
					needSuite = append(needSuite, id)
					reasons[id] = strings.TrimSpace(line)
					break
				}
			}
		}
		slices.SortFunc(needSuite, testID.compare)
		if len(needSuite) == 0 {
			t.Fatalf("no test skipped with %q, though the clone has no JSON Schema Test Suite beside it", extdata.SuiteMissing)
		}
		t.Logf("%s passed in the clone in %s", strings.Join(command, " "), run.took.Round(time.Second))
		for _, id := range needSuite {
			t.Logf("%s skipped: %s", id, reasons[id])
		}
	})
	if len(needSuite) == 0 {
		return
	}

	t.Run("with the suite", func(t *testing.T) {
		suite := extdata.JSONSchemaSuite(t)
		// The README's flags again (not its packages), so that the build of the first
		// run is reused.
		args := []string{"test", "-json", "-run", "Suite"}
		for _, word := range command[2:] {
			if strings.HasPrefix(word, "-") {
				args = append(args, word)
			}
		}
		var pkgs []string
		for _, id := range needSuite {
			if !slices.Contains(pkgs, id.pkg) {
				pkgs = append(pkgs, id.pkg)
			}
		}
		args = append(args, pkgs...)
		run := goTest(t, mod, cloneEnv(t, extdata.SuiteVar+"="+suite, extdata.RequireVar+"=1"), args)
		if run.failed {
			t.Fatalf("go %s failed in the clone:\n%s", strings.Join(args, " "), run.report())
		}
		for _, id := range needSuite {
			if run.status[id] != "pass" {
				t.Errorf("%s: %q with the suite at %s (its name must contain Suite for -run Suite to select it)", id, run.status[id], suite)
				continue
			}
			counted := 0
			for _, line := range run.output[id] {
				if n, ok := extdata.ParseCases(line); ok {
					counted++
					t.Logf("%s: %s", id, strings.TrimSpace(line))
					if n <= 0 {
						t.Errorf("%s ran no suite case: %s", id, line)
					}
				}
			}
			if counted == 0 {
				t.Errorf("%s passed but reported no case count (extdata.Cases); its output:\n%s", id, strings.Join(run.output[id], "\n"))
			}
		}
	})
}

// cloneModule clones the repository holding the module into a fresh directory and
// returns the module's directory in the clone. Without git or a repository it ends the
// test through extdata.Unavailable.
func cloneModule(t *testing.T) string {
	root, err := extdata.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		extdata.Unavailable(t, "git not found ("+err.Error()+")", "Install git to run the fresh-clone test.")
	}
	top, err := gitOutput(root, "rev-parse", "--show-toplevel")
	if err != nil {
		extdata.Unavailable(t, fmt.Sprintf("the module root %s is not in a git repository (%v)", root, err),
			"The fresh-clone test needs a git clone of luatool, not a copy of its files.")
	}
	rel, err := filepath.Rel(resolved(t, top), resolved(t, root))
	if err != nil {
		t.Fatal(err)
	}
	head, err := gitOutput(root, "rev-parse", "HEAD")
	if err != nil {
		t.Fatalf("the repository at %s has no HEAD to clone: %v", top, err)
	}
	if status, err := gitOutput(root, "status", "--porcelain"); err != nil {
		t.Fatal(err)
	} else if status != "" {
		t.Logf("the working tree has uncommitted changes; the clone tests HEAD, %s, without them", head)
	}

	dir := t.TempDir()
	clone := filepath.Join(dir, "luatool")
	if out, err := exec.Command("git", "clone", "--quiet", "--no-local", top, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone %s: %v\n%s", top, err, out)
	}
	mod := filepath.Join(clone, rel)
	if _, err := os.Stat(filepath.Join(mod, "go.mod")); err != nil {
		extdata.Unavailable(t, fmt.Sprintf("the repository at %s does not hold the module at %s (%v)", top, rel, err),
			"The fresh-clone test needs a git clone of luatool, not a copy of its files.")
	}
	beside := filepath.Join(filepath.Dir(mod), "shared")
	if _, err := os.Stat(beside); err == nil {
		t.Fatalf("the clone has %s beside the module, so it is not a fresh clone's layout", beside)
	}
	return mod
}

// gitOutput runs git in dir and returns its output, trimmed.
func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

func resolved(t *testing.T, path string) string {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readmeTestCommand returns the words of the README's test command: the second line of
// its first sh block.
func readmeTestCommand(t *testing.T, readme string) []string {
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	langs, bodies := codeBlocks(string(b))
	i := slices.Index(langs, "sh")
	if i < 0 {
		t.Fatalf("%s has no sh block", readme)
	}
	lines := strings.Split(strings.TrimSpace(bodies[i]), "\n")
	if len(lines) < 2 {
		t.Fatalf("the first sh block of %s has no second command: %q", readme, lines)
	}
	words := shellWords(t, lines[1])
	if len(words) < 2 || words[0] != "go" || words[1] != "test" {
		t.Fatalf("the README's test command %q is not a go test command", lines[1])
	}
	return words
}

// cloneEnv returns the environment of a run in the clone: this one without the test
// data variables, with -count=1 added to GOFLAGS so that nothing comes from the test
// cache, freshCloneVar set, and extra added.
func cloneEnv(t *testing.T, extra ...string) []string {
	out, err := exec.Command("go", "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatalf("go env GOFLAGS: %v", err)
	}
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case extdata.SuiteVar, extdata.RequireVar, freshCloneVar, "GOFLAGS":
		default:
			env = append(env, kv)
		}
	}
	env = append(env, "GOFLAGS="+strings.TrimSpace(strings.TrimSpace(string(out))+" -count=1"), freshCloneVar+"=1")
	return append(env, extra...)
}

// A testID names a test (or, with test empty, a package's own output).
type testID struct{ pkg, test string }

func (id testID) String() string {
	if id.test == "" {
		return id.pkg
	}
	return id.pkg + "." + id.test
}

func (id testID) topLevel() bool { return id.test != "" && !strings.Contains(id.test, "/") }

func (id testID) compare(other testID) int { return strings.Compare(id.String(), other.String()) }

// A goTestRun is what a go test -json run reported.
type goTestRun struct {
	failed bool
	status map[testID]string   // the last pass, fail or skip of each test
	output map[testID][]string // the output of each test, line by line
	other  []string            // build output, and lines that are no event
	stderr string
	took   time.Duration
}

// goTest runs go with args (which must include -json) in dir and reads its events.
func goTest(t *testing.T, dir string, env, args []string) *goTestRun {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	run := &goTestRun{status: map[testID]string{}, output: map[testID][]string{}}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	scan := bufio.NewScanner(stdout)
	scan.Buffer(nil, 64<<20)
	for scan.Scan() {
		var ev struct {
			Action, Package, Test, Output string
		}
		if json.Unmarshal(scan.Bytes(), &ev) != nil || ev.Action == "" {
			run.other = append(run.other, scan.Text())
			continue
		}
		id := testID{ev.Package, ev.Test}
		switch ev.Action {
		case "output":
			run.output[id] = append(run.output[id], strings.TrimSuffix(ev.Output, "\n"))
		case "build-output":
			run.other = append(run.other, strings.TrimSuffix(ev.Output, "\n"))
		case "pass", "fail", "skip":
			run.status[id] = ev.Action
		}
	}
	if err := scan.Err(); err != nil {
		t.Errorf("reading go test's output: %v", err)
	}
	err = cmd.Wait()
	run.took = time.Since(start)
	run.failed = err != nil
	run.stderr = stderr.String()
	return run
}

// report returns the output of the failed tests and packages, the build output and
// stderr.
func (r *goTestRun) report() string {
	var failed []testID
	for id, status := range r.status {
		if status == "fail" {
			failed = append(failed, id)
		}
	}
	slices.SortFunc(failed, testID.compare)
	var b strings.Builder
	for _, id := range failed {
		fmt.Fprintf(&b, "--- %s\n%s\n", id, strings.Join(r.output[id], "\n"))
	}
	for _, text := range [][]string{r.other, {r.stderr}} {
		if s := strings.TrimSpace(strings.Join(text, "\n")); s != "" {
			fmt.Fprintf(&b, "%s\n", s)
		}
	}
	return b.String()
}
