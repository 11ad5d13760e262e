// Package luatest runs the Lua tests of tools: files named *_test.lua beside the
// tools, whose cases call tools through the real pipeline in a temporary root and
// check the results with a small assert module.
//
// A test file registers cases with the test module:
//
//	local test = require("test")
//	local assert = require("assert")
//
//	test.case("counts words", function(t)
//	  t:write("a.txt", "one two three")
//	  local r = t:call("WordCount", { file_path = t:path("a.txt") })
//	  assert.eq(r.isError, false)
//	  assert.matches(r.text, "^3 words")
//	end)
//
// Each case runs in a fresh Lua state with a fresh temporary root and a fresh engine
// (Options.NewEngine), so cases cannot disturb each other. t has:
//
//	t.root                    the case's root directory (absolute)
//	t:path(rel)               an absolute path inside the root
//	t:write(rel, content)     create a file in the root (and its directories)
//	t:read(rel)               a file's content, or nil when it does not exist
//	t:call(name, input, opts) call a tool; opts.answer = "allow" or "deny" answers
//	                          an ask (none: the ask is denied), opts.id sets the
//	                          tool_use id
//
// t:call returns {text, isError, stage, data, asked, log}: the result's text as the
// model sees it, whether it is an error, the stage where the call ended ("done" when
// it ran), what call returned, whether an ask was made (the pipeline asked for
// permission for the call, which opts.answer answered, or, without one, denied), and
// the lines the tool logged. When the tool declares an outputSchema, data that does
// not match it fails the case at the t:call line.
//
// The assert module has eq(got, want [, message]) (deep equality of tables),
// matches(s, pattern [, message]) (a Lua pattern) and fails(fn [, pattern [,
// message]]), which calls fn, requires it to raise an error (matching pattern, if
// given) and returns the error's message. A failed assertion names the test file and
// line; its text starts with the message, when one is given.
package luatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
)

// DefaultTimeout bounds one case when Options.Timeout is zero.
const DefaultTimeout = time.Minute

// Options configure RunFile.
type Options struct {
	// NewEngine builds the engine of one case, with its tools loaded, confined to
	// root (a new empty directory). scratch is another new directory, outside root,
	// for what the engine keeps besides (persisted results): tools cannot see it.
	// Both are removed after the case. An error fails the case.
	NewEngine func(root, scratch string) (*engine.Engine, error)
	// Limits bound the test file's own Lua states.
	Limits bindings.Limits
	// Timeout bounds each case. Zero means DefaultTimeout.
	Timeout time.Duration
}

// FileResult is the outcome of one test file.
type FileResult struct {
	File string
	// Err is set when the file could not be loaded; no case ran.
	Err   error
	Cases []CaseResult
}

// Failed reports whether the file failed to load or any case failed.
func (r FileResult) Failed() bool {
	if r.Err != nil {
		return true
	}
	for _, c := range r.Cases {
		if c.Err != nil {
			return true
		}
	}
	return false
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	Name string
	// Err is nil for a case that passed. A failed assertion or a Lua error is a
	// *bindings.ScriptError with the file and line.
	Err      error
	Duration time.Duration
	// Log holds what the case printed.
	Log []string
}

// Files returns the test files of a directory (not of its subdirectories), sorted.
func Files(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), "_test.lua") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return files, nil
}

// RunFile runs the cases of one test file, in the order they were registered.
func RunFile(ctx context.Context, file string, opts Options) FileResult {
	res := FileResult{File: file}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	src, err := os.ReadFile(file)
	if err != nil {
		res.Err = err
		return res
	}
	prog, err := bindings.Compile(file, src, opts.Limits)
	if err != nil {
		res.Err = err
		return res
	}
	// A first run of the file lists its cases; each case then runs in a state of its
	// own, so that a failure (which leaves a state unfit for reuse) or a case's
	// leftovers never reach the next.
	names, err := registeredCases(prog, opts.Limits)
	if err != nil {
		res.Err = err
		return res
	}
	if len(names) == 0 {
		res.Err = fmt.Errorf("%s: no test cases (register them with require(\"test\").case(name, fn))", file)
		return res
	}
	for i, name := range names {
		res.Cases = append(res.Cases, runCase(ctx, prog, i, name, opts))
	}
	return res
}

// registered is what the test module records as a file's main chunk runs.
type registered struct {
	names []string
	fns   []*lua.LFunction
}

func load(prog *bindings.Program, limits bindings.Limits) (*bindings.VM, *registered, error) {
	reg := &registered{}
	vm := bindings.NewVM(bindings.Config{Limits: limits, Modules: []*bindings.Module{testModule(reg), assertModule()}})
	if err := vm.Run(prog); err != nil {
		vm.Close()
		return nil, nil, err
	}
	return vm, reg, nil
}

func registeredCases(prog *bindings.Program, limits bindings.Limits) ([]string, error) {
	vm, reg, err := load(prog, limits)
	if err != nil {
		return nil, err
	}
	vm.Close()
	return reg.names, nil
}

func runCase(ctx context.Context, prog *bindings.Program, i int, name string, opts Options) (cr CaseResult) {
	start := time.Now()
	cr.Name = name
	defer func() { cr.Duration = time.Since(start) }()
	vm, reg, err := load(prog, opts.Limits)
	if err != nil {
		cr.Err = err
		return cr
	}
	defer vm.Close()
	if len(reg.fns) <= i || reg.names[i] != name {
		cr.Err = fmt.Errorf("%s: the cases registered differ from one run of the file to the next", prog.Name)
		return cr
	}
	root, err := os.MkdirTemp("", "luatool-test-")
	if err != nil {
		cr.Err = err
		return cr
	}
	defer os.RemoveAll(root)
	if root, err = filepath.EvalSymlinks(root); err != nil {
		cr.Err = err
		return cr
	}
	scratch, err := os.MkdirTemp("", "luatool-test-scratch-")
	if err != nil {
		cr.Err = err
		return cr
	}
	defer os.RemoveAll(scratch)
	eng, err := opts.NewEngine(root, scratch)
	if err != nil {
		cr.Err = fmt.Errorf("%s: %w", prog.Name, err)
		return cr
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	c := &caseEnv{ctx: ctx, root: root, eng: eng}
	_, err = vm.Call(&bindings.Call{Context: ctx, Log: func(line string) { cr.Log = append(cr.Log, line) }},
		reg.fns[i], c.table(vm))
	if err != nil && ctx.Err() == context.DeadlineExceeded && errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%s: case %q did not finish within %v: %w", prog.Name, name, opts.Timeout, err)
	}
	cr.Err = err
	return cr
}

// testModule is require("test"): case(name, fn) registers a case.
func testModule(reg *registered) *bindings.Module {
	return &bindings.Module{
		Name: "test",
		Doc:  "Registers the cases of a tool test file.",
		Funcs: map[string]lua.LGFunction{
			"case": func(L *lua.LState) int {
				args := bindings.NewArgs(L, "test.case")
				name := args.String(1)
				fn := L.CheckFunction(2)
				reg.names = append(reg.names, name)
				reg.fns = append(reg.fns, fn)
				return 0
			},
		},
	}
}
