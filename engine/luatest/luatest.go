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
//	t:stub(module, fns)       from now on in the case, the tools' calls of module's
//	                          functions run those of fns (a table of functions by
//	                          name) instead
//
// t:call returns {text, content, isError, stage, data, asked, protected, log}: the
// result's text as the model sees it, its content blocks in MCP's shape as a client
// gets them, whether it is an error, the stage where the call ended ("done" when it
// ran), what call returned, whether an ask was made (the pipeline
// asked for permission for the call, which opts.answer answered, or, without one,
// denied), the text of that ask when it was a safety check (the call writes
// something protected; nil otherwise), and the lines the tool logged. When the tool declares an outputSchema, data that does
// not match it fails the case at the t:call line.
//
// The assert module has eq(got, want [, message]) (deep equality of tables),
// matches(s, pattern [, message]) (a Lua pattern) and fails(fn [, pattern [,
// message]]), which calls fn, requires it to raise an error (matching pattern, if
// given) and returns the error's message. A failed assertion names the test file and
// line; its text starts with the message, when one is given, and values in it are
// shown as JSON.
//
// # Stubs
//
// t:stub replaces a module the tools may require (any host module, tools or env;
// not json, which touches nothing) for the tools' calls of the rest of the case, so
// that a tool that calls an API, runs commands or reads secrets is tested without
// them:
//
//	t:stub("http", { get = function(url) return { status = 200, body = "{}" } end })
//
// The stub replaces the module whole: a function of it that fns leaves out fails
// when a tool calls it ("http.post is not stubbed"), so a test never reaches the
// world by a function it forgot. A stub is a function of the test file: it may keep
// what it was called with in a local of the case, for the case to assert on. Its
// arguments and results cross from the tool's state as JSON values, an error it
// raises is raised in the tool as the real function's would be (error(msg, 0) gives
// the message without the test file's position), and it runs under the tool call's
// deadline. A module no tool can require, a function the module does not have, or a
// stub that is not a function is an error at the t:stub line, with a did-you-mean.
// Stubs are for the tools' calls: the test file's own use of a module is real. Each
// case starts with none.
//
// Besides test, assert and json, a test file may require the host modules of its
// case's engine (its Lua loader's modules: with hostmod.Standard, fs, glob, grep, shell and
// path, and always the pure modules re, time, base64, hex, url, crypto and uuid), to set up or inspect what the tools work on. They are the very modules the
// tools get, so they reach what the tools reach, the case's root, and no more. The
// main chunk runs again for every case, in the case's environment.
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

	"github.com/luatool/luatool/engine/luaload"

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
	// Both are removed after the case, and the engine is closed, ending what its
	// calls started (background commands). The engine's Modules are the host
	// modules the test file may require. An error fails the case; in the first
	// environment, which lists the file's cases, it fails the file.
	NewEngine func(root, scratch string) (*engine.Engine, error)
	// Limits bound the test file's own Lua states.
	Limits bindings.Limits
	// Timeout bounds each case. Zero means DefaultTimeout.
	Timeout time.Duration
	// Match, if set, chooses the cases to run by name; the others are skipped.
	Match func(name string) bool
}

// FileResult is the outcome of one test file.
type FileResult struct {
	File string
	// Err is set when the file could not be loaded, or the environment of its
	// cases not made; no case ran.
	Err   error
	Cases []CaseResult
	// Skipped are the names of the cases Options.Match left out.
	Skipped []string
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

// RunFile runs the cases of one test file, in the order they were registered, those
// that Options.Match accepts.
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
	// Each case runs in a state, a root and an engine of its own, so that a failure
	// (which leaves a state unfit for reuse) or a case's leftovers never reach the
	// next. The file's main chunk registers the cases, and it may require the host
	// modules, which exist only in a case's environment: the first environment lists
	// the cases, and, unused by any case yet, runs the first one that matches.
	first, err := prepare(prog, opts)
	if err != nil {
		res.Err = err
		return res
	}
	names := first.reg.names
	if len(names) == 0 {
		first.close()
		res.Err = fmt.Errorf("%s: no test cases (register them with require(\"test\").case(name, fn))", file)
		return res
	}
	for i, name := range names {
		if opts.Match != nil && !opts.Match(name) {
			res.Skipped = append(res.Skipped, name)
			continue
		}
		p := first
		first = nil
		if p == nil {
			if p, err = prepare(prog, opts); err != nil {
				res.Cases = append(res.Cases, CaseResult{Name: name, Err: err})
				continue
			}
		}
		res.Cases = append(res.Cases, p.run(ctx, i, name, opts.Timeout))
		p.close()
	}
	if first != nil {
		first.close()
	}
	return res
}

// registered is what the test module records as a file's main chunk runs.
type registered struct {
	names []string
	fns   []*lua.LFunction
}

// prepared is the environment of one case, made before the case runs: the state
// the test file has run in, the case's root, its scratch directory and its engine.
type prepared struct {
	start   time.Time
	vm      *bindings.VM
	reg     *registered
	env     *caseEnv
	cleanup []func()
	prog    string
}

// prepare makes the environment of a case: a new root and scratch directory, the
// engine of opts.NewEngine, and a state that has run the test file with the test
// modules and the engine's host modules, so that what the test file reaches is
// confined as the tools are. On an error, whatever was made is removed.
func prepare(prog *bindings.Program, opts Options) (_ *prepared, err error) {
	p := &prepared{start: time.Now(), prog: prog.Name}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	root, err := os.MkdirTemp("", "luatool-test-")
	if err != nil {
		return nil, err
	}
	p.cleanup = append(p.cleanup, func() { os.RemoveAll(root) })
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "luatool-test-scratch-")
	if err != nil {
		return nil, err
	}
	p.cleanup = append(p.cleanup, func() { os.RemoveAll(scratch) })
	eng, err := opts.NewEngine(root, scratch)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", prog.Name, err)
	}
	// What the case's calls started (background commands) ends with the case.
	p.cleanup = append(p.cleanup, func() { eng.Close() })
	p.env = &caseEnv{root: root, eng: eng}
	p.reg = &registered{}
	modules := []*bindings.Module{testModule(p.reg), assertModule()}
	var luaModules func(string) (*bindings.Program, error)
	var toolModules []*bindings.Module
	if l := luaload.Of(eng); l != nil {
		toolModules = l.ToolModules()
		for _, m := range l.Modules() {
			if m.Name == "test" || m.Name == "assert" {
				return nil, fmt.Errorf("%s: the engine's host module %q has the name of a test module", prog.Name, m.Name)
			}
			modules = append(modules, m)
		}
		dir := filepath.Dir(prog.Name)
		luaModules = l.LuaModules(os.DirFS(dir), dir)
	}
	p.vm = bindings.NewVM(bindings.Config{Limits: opts.Limits, Modules: modules, LuaModules: luaModules})
	p.cleanup = append(p.cleanup, p.vm.Close)
	p.env.stubs = newCaseStubs(p.vm, toolModules)
	if err := p.vm.Run(prog); err != nil {
		return nil, err
	}
	return p, nil
}

// close removes the case's environment: the state, then the directories.
func (p *prepared) close() {
	for i := len(p.cleanup) - 1; i >= 0; i-- {
		p.cleanup[i]()
	}
}

// run runs the case registered i-th, which must be the one named name in this
// state too.
func (p *prepared) run(ctx context.Context, i int, name string, timeout time.Duration) (cr CaseResult) {
	cr.Name = name
	defer func() { cr.Duration = time.Since(p.start) }()
	if len(p.reg.fns) <= i || p.reg.names[i] != name {
		cr.Err = fmt.Errorf("%s: the cases registered differ from one run of the file to the next", p.prog)
		return cr
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p.env.ctx = ctx
	// A case is the test author's own code, working in the case's root: it may do
	// what a tool's call may.
	_, err := p.vm.Call(&bindings.Call{Context: ctx, Access: bindings.AccessWrite, Entry: "test case", Log: bindings.LogFunc(func(line string) { cr.Log = append(cr.Log, line) })},
		p.reg.fns[i], p.env.table(p.vm))
	if err != nil && ctx.Err() == context.DeadlineExceeded && errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%s: case %q did not finish within %v: %w", p.prog, name, timeout, err)
	}
	cr.Err = err
	return cr
}

// testModule is require("test"): case(name, fn) registers a case.
func testModule(reg *registered) *bindings.Module {
	return &bindings.Module{
		Name: "test",
		Pure: true,
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
