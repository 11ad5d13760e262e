package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/internal/extdata"
)

// The environment variables of TestFreshClone.
const (
	// freshCloneTestVar set to 1 runs TestFreshClone; .ci/run sets it.
	freshCloneTestVar = "LUATOOL_FRESH_CLONE_TEST"
	// freshCloneVar is set to 1 in the runs TestFreshClone makes in the clone, so
	// that their TestFreshClone does not start again.
	freshCloneVar = "LUATOOL_FRESH_CLONE"
)

// ciPrograms are the programs .ci/run installs beside Go, for the tests that compare
// with PUC Lua, serve from Redis or balance instances with haproxy, and prometheus,
// which a test scrapes with where the machine has it. A newcomer may have none of
// them.
var ciPrograms = []string{"lua5.1", "lua51", "redis-server", "haproxy", "prometheus"}

// TestFreshClone shows what only a fresh clone can: that the README's two commands
// work for a newcomer, with only Go installed, in a clone with nothing beside it. It
// runs in a clone of HEAD with no ../shared beside it, without the programs CI
// installs on PATH and without any LUATOOL_ variable or CC_ORACLE_CASES:
//
//   - the README's first command (go run ./cmd/luatool call Grep ...) builds luatool
//     and finds what it should;
//   - every test that used something from outside the repository in the run of the
//     whole suite that recorded its uses (extdata.Record; .ci/run makes that run
//     first, in a fresh clone with nothing beside it, and names the record in
//     LUATOOL_TEST_OUTSIDE_LOG) runs again under the README's test command's flags,
//     and must skip, saying what it misses;
//   - every long test (extdata.Long records them too) runs again with them, short,
//     as on a developer's machine, and must pass.
//
// That is enough: the whole suite already passed in a fresh clone, so nothing it needs
// is untracked, ignored or beside the clone but the data and programs it recorded;
// without those and without CI's LUATOOL_ settings, only the tests that recorded a
// use behave differently (the other settings, LUATOOL_REQUIRE_*, turn skips into
// failures and so change nothing in a run that passed), and they are the ones run
// here.
//
// When the module is itself a fresh clone (nothing untracked or ignored in its
// repository, nothing named shared beside it), as in .ci/run, the test runs there,
// reusing the build of the suite's run; otherwise it clones HEAD.
func TestFreshClone(t *testing.T) {
	if os.Getenv(freshCloneVar) == "1" {
		t.Skipf("%s=1: this is a fresh clone's own run", freshCloneVar)
	}
	if os.Getenv(freshCloneTestVar) != "1" {
		t.Skipf("slow (builds and runs tests in a clone); set %s=1 to run it, as .ci/run does", freshCloneTestVar)
	}
	record := os.Getenv(extdata.RecordVar)
	if record == "" {
		t.Fatalf("%s is unset: TestFreshClone runs again the tests a whole run of the suite recorded as using something from outside the repository; .ci/run makes that run and sets it", extdata.RecordVar)
	}
	uses, err := extdata.ReadUses(record)
	if err != nil {
		t.Fatalf("reading the uses the suite's run recorded: %v", err)
	}
	// Everything CI gives the suite's run was used there: data or a program CI failed
	// to give would have let its tests skip unseen (only the suite, the oracle's
	// cases, redis-server, haproxy, prometheus and the conformance runner have a
	// LUATOOL_REQUIRE_ setting of their own).
	for _, what := range []string{extdata.SuiteName, oracleCasesName, "lua5.1", "redis-server", "haproxy", "prometheus", conformanceName, extdata.LongVar} {
		if !slices.ContainsFunc(uses, func(u extdata.Use) bool { return u.What == what }) {
			t.Errorf("%s records no use of %s: did .ci/run give the suite's run everything? uses: %v", record, what, uses)
		}
	}
	if t.Failed() {
		return
	}
	mod := freshModule(t)
	env := newcomerEnv(t)
	first, test := readmeCommands(t, filepath.Join(mod, "README.md"))

	t.Run("first command", func(t *testing.T) {
		cmd := exec.Command(first[0], first[1:]...)
		cmd.Dir, cmd.Env = mod, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil || !strings.Contains(stdout.String(), "engine/engine.go:") || !strings.Contains(stdout.String(), "func New(") {
			t.Fatalf("%s in the clone: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(first, " "), err, stdout.String(), stderr.String())
		}
	})

	t.Run("without what CI gives the tests", func(t *testing.T) {
		// The README's flags, -json to read the outcome, and the top-level tests that
		// recorded a use (a subtest runs with its parent), in their packages.
		args := []string{"test", "-json"}
		for _, word := range test[2:] {
			if strings.HasPrefix(word, "-") {
				args = append(args, word)
			}
		}
		var tops, pkgs []string
		for _, u := range uses {
			top, _, _ := strings.Cut(u.Test, "/")
			if top = regexp.QuoteMeta(top); !slices.Contains(tops, top) {
				tops = append(tops, top)
			}
			if pkg := "./" + u.Dir; !slices.Contains(pkgs, pkg) {
				pkgs = append(pkgs, pkg)
			}
		}
		args = append(append(args, "-run", "^("+strings.Join(tops, "|")+")$"), pkgs...)
		run := goTest(t, mod, env, args)
		if run.failed {
			t.Fatalf("go %s failed in the clone:\n%s", strings.Join(args, " "), run.report())
		}
		for _, u := range uses {
			id := testID{module + "/" + u.Dir, u.Test}
			if u.Dir == "." {
				id.pkg = module
			}
			if u.What == extdata.LongVar {
				// A long test, run short as on a developer's machine: it must pass.
				if run.status[id] != "pass" {
					t.Errorf("%s runs short without %s; it must pass, but it ended %q:\n%s",
						id, extdata.LongVar, run.status[id], strings.Join(run.output[id], "\n"))
				}
				continue
			}
			said := slices.ContainsFunc(run.output[id], func(line string) bool { return strings.Contains(line, u.What) })
			if run.status[id] != "skip" || !said {
				t.Errorf("%s used %s in the suite's run; without it, it must skip saying so, but it ended %q:\n%s",
					id, u.What, run.status[id], strings.Join(run.output[id], "\n"))
				continue
			}
			for _, line := range run.output[id] {
				if strings.Contains(line, u.What) {
					t.Logf("%s skipped: %s", id, strings.TrimSpace(line))
					break
				}
			}
		}
		t.Logf("go %s passed in the clone in %s", strings.Join(args, " "), run.took.Round(time.Second))
	})
}

// freshModule returns the directory of a module that is a fresh clone of this one's
// repository: this module's own when its repository holds nothing untracked or
// ignored and has nothing named shared beside it, else a clone of HEAD in a
// temporary directory. Without git or a repository it ends the test through
// extdata.Unavailable.
func freshModule(t *testing.T) string {
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
	status, err := gitOutput(root, "status", "--porcelain", "--ignored")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(top), "shared")); status == "" && os.IsNotExist(err) {
		t.Logf("%s is a fresh clone: the test runs there", top)
		return root
	}
	rel, err := filepath.Rel(resolved(t, top), resolved(t, root))
	if err != nil {
		t.Fatal(err)
	}
	head, err := gitOutput(root, "rev-parse", "HEAD")
	if err != nil {
		t.Fatalf("the repository at %s has no HEAD to clone: %v", top, err)
	}
	t.Logf("%s has untracked or ignored files, or shared beside it: the test runs in a clone of HEAD, %s", top, head)
	clone := filepath.Join(t.TempDir(), "luatool")
	if out, err := exec.Command("git", "clone", "--quiet", "--no-local", top, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone %s: %v\n%s", top, err, out)
	}
	mod := filepath.Join(clone, rel)
	if _, err := os.Stat(filepath.Join(mod, "go.mod")); err != nil {
		extdata.Unavailable(t, fmt.Sprintf("the repository at %s does not hold the module at %s (%v)", top, rel, err),
			"The fresh-clone test needs a git clone of luatool, not a copy of its files.")
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

// readmeCommands returns the words of the README's first command and of its test
// command: the two lines of its first sh block.
func readmeCommands(t *testing.T, readme string) (first, test []string) {
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
	if len(lines) != 2 {
		t.Fatalf("the first sh block of %s is not the first command and the test command: %q", readme, lines)
	}
	first, test = shellWords(t, lines[0]), shellWords(t, lines[1])
	if len(first) < 2 || first[0] != "go" || len(test) < 2 || test[0] != "go" || test[1] != "test" {
		t.Fatalf("the README's commands %q are not a go command and a go test command", lines)
	}
	return first, test
}

// newcomerEnv returns the environment of a newcomer's run: this one without any
// LUATOOL_ variable or CC_ORACLE_CASES, and with the programs CI installs (ciPrograms) hidden from PATH,
// with -count=1 added to GOFLAGS so that nothing comes from the test cache, and
// freshCloneVar set.
func newcomerEnv(t *testing.T) []string {
	out, err := exec.Command("go", "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatalf("go env GOFLAGS: %v", err)
	}
	var env []string
	for _, kv := range os.Environ() {
		switch name, value, _ := strings.Cut(kv, "="); {
		case strings.HasPrefix(name, "LUATOOL_"), name == "CC_ORACLE_CASES", name == "GOFLAGS":
		case name == "PATH":
			env = append(env, "PATH="+pathWithout(t, value, ciPrograms))
		default:
			env = append(env, kv)
		}
	}
	return append(env, "GOFLAGS="+strings.TrimSpace(strings.TrimSpace(string(out))+" -count=1"), freshCloneVar+"=1")
}

// pathWithout returns path with each directory that holds one of programs replaced
// by a temporary directory of links to everything else in it.
func pathWithout(t *testing.T, path string, programs []string) string {
	dirs := filepath.SplitList(path)
	for i, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil || !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return slices.Contains(programs, e.Name()) }) {
			continue
		}
		links := t.TempDir()
		for _, e := range entries {
			if slices.Contains(programs, e.Name()) {
				continue
			}
			if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(links, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		dirs[i] = links
	}
	return strings.Join(dirs, string(filepath.ListSeparator))
}

// A testID names a test (or, with test empty, a package's own output).
type testID struct{ pkg, test string }

func (id testID) String() string {
	if id.test == "" {
		return id.pkg
	}
	return id.pkg + "." + id.test
}

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
