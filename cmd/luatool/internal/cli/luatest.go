package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/luatest"
)

// runTest runs the *_test.lua files of the given directories, or the test files
// given (default: the tool directories on disk). Each case calls the tools of its
// test file's directory (over the embedded standard set, unless --no-standard-tools)
// through the pipeline in a temporary root, with no settings files: tests are
// hermetic. --run chooses cases by name.
func runTest(a *app, args []string) int {
	var match func(string) bool
	if a.cfg.run != "" {
		re, err := regexp.Compile(a.cfg.run)
		if err != nil {
			return a.errorf("--run %q: %v", a.cfg.run, err)
		}
		match = re.MatchString
	}
	targets, err := a.testTargets(args)
	if err != nil {
		return a.errorf("%v", err)
	}
	var results []luatest.FileResult
	for _, t := range targets {
		for _, f := range t.files {
			r := luatest.RunFile(context.Background(), f, luatest.Options{NewEngine: a.testEngine(t.dir), Timeout: a.cfg.timeout, Match: match})
			if !a.cfg.json {
				a.printTestFile(r)
			}
			results = append(results, r)
		}
	}
	passed, failed, skipped := 0, 0, 0
	for _, r := range results {
		if r.Err != nil {
			failed++
		}
		skipped += len(r.Skipped)
		for _, c := range r.Cases {
			if c.Err != nil {
				failed++
			} else {
				passed++
			}
		}
	}
	if a.cfg.json {
		a.printJSON(testJSON(results))
	} else if len(results) == 0 {
		var dirs []string
		for _, t := range targets {
			dirs = append(dirs, t.dir)
		}
		fmt.Fprintf(a.stdout, "no test files (*_test.lua) in %s\n", strings.Join(dirs, ", "))
	} else {
		summary := fmt.Sprintf("%s, %d failed", plural(passed, "case")+" passed", failed)
		if skipped > 0 {
			summary += fmt.Sprintf(", %d skipped by --run", skipped)
		}
		fmt.Fprintln(a.stdout, summary)
	}
	switch {
	case failed > 0:
		return ExitTool
	case match != nil && passed == 0 && skipped > 0:
		// A pattern that selects nothing is a mistake, not a success.
		return a.errorf("no case matches --run %q", a.cfg.run)
	}
	return ExitOK
}

// testTarget is a directory whose tools the test files run with, and those files.
type testTarget struct {
	dir   string
	files []string
}

// testTargets resolves test's arguments: a directory stands for its test files, a
// test file for itself (with the tools of its directory); none, for the tool
// directories on disk.
func (a *app) testTargets(args []string) ([]testTarget, error) {
	if len(args) == 0 {
		srcs, err := a.sources()
		if err != nil {
			return nil, err
		}
		for _, s := range srcs {
			if s.Dir != "" {
				args = append(args, s.Dir)
			}
		}
		if len(args) == 0 {
			return nil, errors.New("no tool directory to test: give one (luatool test DIR) or --tools DIR")
		}
	}
	var targets []testTarget
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			files, err := luatest.Files(arg)
			if err != nil {
				return nil, err
			}
			targets = append(targets, testTarget{dir: arg, files: files})
			continue
		}
		if !strings.HasSuffix(arg, "_test.lua") {
			msg := fmt.Sprintf("%s is not a test file (*_test.lua)", arg)
			if test := strings.TrimSuffix(arg, ".lua") + "_test.lua"; strings.HasSuffix(arg, ".lua") && exists(test) {
				msg += fmt.Sprintf(" (did you mean %s?)", test)
			}
			return nil, errors.New(msg)
		}
		targets = append(targets, testTarget{dir: filepath.Dir(arg), files: []string{arg}})
	}
	return targets, nil
}

// exists reports whether a file exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// testEngine returns the engine factory of a directory's tests.
func (a *app) testEngine(dir string) func(root, scratch string) (*engine.Engine, error) {
	return func(root, results string) (*engine.Engine, error) {
		// Results are persisted outside the root, as in the CLI's own sessions, and
		// tools may read them there (the model is pointed at them).
		// The network policy is the flags' only: tests read no settings file.
		network, err := a.cfg.flagNetwork()
		if err != nil {
			return nil, err
		}
		policy, err := network.Policy()
		if err != nil {
			return nil, err
		}
		mods, err := hostmod.StandardWith(hostmod.Options{Roots: []string{root, results}, Shell: a.cfg.shellOptions(), HTTP: hostmod.HTTPOptions{Policy: policy}})
		if err != nil {
			return nil, err
		}
		eng, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
			Cwd: root, Roots: []string{root, results}, Home: home(), ResultsDir: results, Timeout: a.cfg.timeout})
		if err != nil {
			return nil, err
		}
		var srcs []engine.Source
		if !a.cfg.noStandardTools {
			src, _ := standardSource("")
			srcs = append(srcs, src)
		}
		srcs = append(srcs, engine.DirSource(dir))
		var problems []string
		for _, d := range eng.Load(srcs...) {
			if d.Severity == diag.SeverityError {
				problems = append(problems, d.String())
			}
		}
		if len(problems) > 0 {
			return nil, errors.New("tools failed to load:\n" + strings.Join(problems, "\n"))
		}
		return eng, nil
	}
}

func (a *app) printTestFile(r luatest.FileResult) {
	name := filepath.ToSlash(r.File)
	if r.Err != nil {
		fmt.Fprintf(a.stdout, "FAIL %s\n%s\n", name, indent(r.Err.Error()))
		return
	}
	for _, c := range r.Cases {
		if c.Err == nil {
			fmt.Fprintf(a.stdout, "ok   %s: %s (%s)\n", name, c.Name, c.Duration.Round(100*time.Microsecond))
			continue
		}
		fmt.Fprintf(a.stdout, "FAIL %s: %s\n%s\n", name, c.Name, indent(c.Err.Error()))
		for _, line := range c.Log {
			fmt.Fprintf(a.stdout, "    | %s\n", line)
		}
	}
}

// testJSON is the --json form of the results.
func testJSON(results []luatest.FileResult) []map[string]any {
	out := []map[string]any{}
	for _, r := range results {
		f := map[string]any{"file": r.File, "cases": []map[string]any{}}
		if r.Err != nil {
			f["error"] = r.Err.Error()
		}
		if len(r.Skipped) > 0 {
			f["skipped"] = r.Skipped
		}
		for _, c := range r.Cases {
			cj := map[string]any{"name": c.Name, "ok": c.Err == nil, "ms": c.Duration.Milliseconds()}
			if c.Err != nil {
				cj["error"] = c.Err.Error()
			}
			f["cases"] = append(f["cases"].([]map[string]any), cj)
		}
		out = append(out, f)
	}
	return out
}
