package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/luatool/luatool/builtin"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luatest"
	"github.com/luatool/luatool/scripts"
)

// runTest runs the *_test.lua files of the given directories (default: the tool
// directories on disk). Each case calls the tools of its directory (over the
// embedded standard set, unless --no-builtin) through the pipeline in a temporary
// root, with no settings files: tests are hermetic.
func runTest(a *app, args []string) int {
	dirs := args
	if len(dirs) == 0 {
		srcs, err := a.sources()
		if err != nil {
			return a.errorf("%v", err)
		}
		for _, s := range srcs {
			if s.Dir != "" {
				dirs = append(dirs, s.Dir)
			}
		}
	}
	if len(dirs) == 0 {
		return a.errorf("no tool directory to test: give one (luatool test DIR) or --tools DIR")
	}
	var results []luatest.FileResult
	for _, dir := range dirs {
		files, err := luatest.Files(dir)
		if err != nil {
			return a.errorf("%v", err)
		}
		for _, f := range files {
			r := luatest.RunFile(context.Background(), f, luatest.Options{NewEngine: a.testEngine(dir), Timeout: a.cfg.timeout})
			if !a.cfg.json {
				a.printTestFile(r)
			}
			results = append(results, r)
		}
	}
	passed, failed := 0, 0
	for _, r := range results {
		if r.Err != nil {
			failed++
		}
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
		fmt.Fprintf(a.stdout, "no test files (*_test.lua) in %s\n", strings.Join(dirs, ", "))
	} else {
		fmt.Fprintf(a.stdout, "%s, %d failed\n", plural(passed, "case")+" passed", failed)
	}
	if failed > 0 {
		return ExitTool
	}
	return ExitOK
}

// testEngine returns the engine factory of a directory's tests.
func (a *app) testEngine(dir string) func(root, scratch string) (*engine.Engine, error) {
	return func(root, results string) (*engine.Engine, error) {
		// Results are persisted outside the root, as in the CLI's own sessions, and
		// tools may read them there (the model is pointed at them).
		mods, err := builtin.Standard([]string{root, results})
		if err != nil {
			return nil, err
		}
		eng, err := engine.New(engine.Options{Modules: mods, Cwd: root, Roots: []string{root, results}, ResultsDir: results, Timeout: a.cfg.timeout})
		if err != nil {
			return nil, err
		}
		var srcs []engine.Source
		if !a.cfg.noBuiltin {
			srcs = append(srcs, engine.Source{Name: "<embedded>", FS: scripts.Tools()})
		}
		srcs = append(srcs, engine.DirSource(dir))
		var problems []string
		for _, d := range eng.Load(srcs...) {
			if d.Severity == engine.SeverityError {
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
