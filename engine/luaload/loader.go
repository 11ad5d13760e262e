// Package luaload is the engine's loader for tools written in Lua: each *.lua file of a
// tool directory returns a table with the members of the Tool contract, and becomes an
// engine.ToolDef whose functions run in sandboxed Lua states (package bindings).
//
// A host gives the engine a Loader, with the host modules Lua tools may require:
//
//	mods, _ := hostmod.Standard(roots)
//	eng, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Roots: roots})
//
// The roots are given twice, and engine.New checks that they agree (Roots): the host
// modules reach what the engine was given and nothing else. Package luatool, at the
// module's root, builds both from one list.
//
// Beside the host's modules, every tool may require json, the loader's tools module
// and the pure modules of package puremod (re, time, base64, hex, url, crypto, uuid),
// which compute and reach nothing on the host.
//
// A file whose table has an event member is a hook file instead of a tool (see
// hook.go): it is loaded, checked and reloaded the same way, and runs as a
// hooks.Hook.
//
// # Loading a file
//
// Load takes one file through these steps:
//
//  1. compile the source once (size limit first, then syntax);
//  2. run the main chunk on a new state, in the load phase: host functions that read
//     or touch the world refuse (bindings.AccessNone), so that loading a file, which
//     luatool check and list do, never acts;
//  3. check the table the chunk returned against the contract (engine.Members): every
//     key is a member (or starts with _), every member is of a kind it may be;
//  4. convert the schemas to JSON values (engine.Build compiles them);
//  5. wrap every function member so that each use takes a state from the tool's pool,
//     calls the function under the caller's context, converts the result and gives
//     the state back (a state whose call failed is discarded); within a call, the
//     members the engine asks (isReadOnly, validateInput, checkPermissions, call,
//     mapResult) share one state and one conversion of the input instead, through
//     the call's engine.Crossing (crossing.go).
//
// The state that ran the chunk is closed: a tool holds no Lua state until it is
// called. What each member may do is engine.CallContext.Grant's to decide: members
// other than call run with read access only (bindings.AccessRead); call gets write
// access when the tool is not read-only for its input.
//
// # Prompts and resources
//
// A file whose table has kind = "prompt" or kind = "resource" is an MCP prompt or
// resource instead of a tool (a ToolDef with Feature set, of package engine/feature;
// feature.go has the members): it is compiled, run and checked in the same steps,
// under the same limits and load-phase rules, and its get or read runs on pooled
// states like a tool's members, with no access (bindings.AccessNone): it computes,
// and reaches nothing on the host.
//
// # Lua modules
//
// Tool files share code through Lua modules in the lib/ directory beside them:
// require("text") loads lib/text.lua, require("util.paths") lib/util/paths.lua, after
// the host modules and json, which come first. A module is compiled once per version
// of the directory, run once per state like the tool file itself (in the load phase
// when a tool file's main chunk requires it), and confined like everything else. A
// change to any file in lib/ reloads every tool of the directory.
//
// # The loader's own modules
//
// Besides the host's modules and json, every tool may require two modules of the
// loader: tools (ToolsModuleName), the definitions of the tools on offer, and env
// (EnvModuleName), the values the engine's host hands the tool (engine.Options.Env,
// given to the loader with each file): env.get(name) returns the value or nil, and
// env.names() the names the tool may read. A value given to some tools only is nil
// for the others; a secret may be read by call only, since what the other members
// return is shown to people and the model; neither function works while the tool
// file loads.
package luaload

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/puremod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/srcpos"

	lua "github.com/yuin/gopher-lua"
)

// ToolsModuleName is the name of the module the loader offers every Lua tool, beside
// the host's modules: require("tools"). A host module of this name is refused.
const ToolsModuleName = "tools"

// LibDir is the directory of a tool directory that holds its Lua modules.
const LibDir = "lib"

// Options configure a Loader. The zero value is usable: no host modules, the default
// limits.
type Options struct {
	// Modules are the host modules tools may require. Capabilities are opt-in: a tool
	// can reach only what is listed here, json, the pure modules of package puremod
	// (re, time, base64, hex, url, crypto, uuid), which compute and reach nothing,
	// and the loader's own modules: tools (ToolsModuleName), which reveals tool
	// definitions and nothing else, and env (EnvModuleName), the values the engine's
	// host hands the tool (engine.Options.Env, an env.Set). A module listed here with the name of a pure
	// module replaces it.
	Modules []*bindings.Module
	// Limits bound the Lua states.
	Limits bindings.Limits
	// MaxConcurrentCalls bounds how many calls run Lua code at once; one principal
	// (engine.PrincipalOf) may hold half of them, and one tool of a principal a
	// quarter, so that a burst of runaway calls of one principal leaves room for the
	// others, and of one tool for the principal's other tools. Calls beyond wait, without using CPU,
	// within their deadline, served fairly between principals (see bindings.Gate). A
	// call waiting for a command, a response or a timer holds no slot meanwhile. Zero
	// means four per CPU (GOMAXPROCS), and at least four.
	MaxConcurrentCalls int
	// KeepStateFor names a tool the host calls as soon as it is loaded (luatool call
	// does): the state that ran its file is kept in the tool's pool instead of being
	// closed, and the first call takes it rather than building another (a new state
	// and a second run of the file: about 1.4 ms, 6% of a `luatool call Read`). The state is one
	// the pool would have built: reading the table runs none of its functions. Empty
	// keeps no state, which suits a host that loads many tools and calls few.
	KeepStateFor string
	// Lint adds, to what loading finds, what can be seen wrong in a file's source
	// without running it (see lint.go): the content blocks its mapResult or a
	// prompt's get writes as table constructors; the input fields a tool's members
	// read that its schema does not declare, unknown ctx methods, module and
	// library functions, member functions with more parameters than they are
	// called with. It parses each file a second time (about 2 ms for a file of 400
	// lines, and 3 ms once to read the names of ctx and the modules); luatool check
	// and watch set it. What a model API refuses of a tool's definition
	// (apischema.Refusals) is said by every load.
	Lint bool
}

// A Loader loads Lua tool files for an engine. It is safe for concurrent use; one
// Loader may serve several engines (they then share its bound on concurrent calls and
// its memory watchdog).
type Loader struct {
	opts     Options
	required []*bindings.Module // the host's and the pure ones
	modules  []*bindings.Module // required and the loader's own (tools, env)
	watchdog *bindings.Watchdog
	gate     *bindings.Gate
	libs     programCache // the compiled modules of the tool directories' lib/
	// names are what the lint checks fields against, read once (luaNames).
	names func() *luaNames
}

// New returns a loader for the options. Host modules are checked here, once: two
// modules of one name, a module named json, tools or env, or a value Lua cannot be given
// is a programming error of the host, and New panics with it (as http.Handle does
// for a duplicate pattern) rather than let a tool file fail later.
func New(opts Options) *Loader {
	for _, m := range opts.Modules {
		if m.Name == ToolsModuleName || m.Name == EnvModuleName {
			panic(fmt.Sprintf("luaload: module %s: the name is reserved for the loader's own module", m.Name))
		}
	}
	l := &Loader{opts: opts, required: slices.Clip(opts.Modules)}
	for _, m := range puremod.Modules() {
		if !slices.ContainsFunc(opts.Modules, func(h *bindings.Module) bool { return h.Name == m.Name }) {
			l.required = append(l.required, m)
		}
	}
	l.modules = append(slices.Clip(l.required), toolsModule(), envModule())
	if err := bindings.CheckModules(l.modules); err != nil {
		panic("luaload: " + err.Error())
	}
	limits := opts.Limits.WithDefaults()
	if limits.MemoryBudget > 0 {
		l.watchdog = bindings.NewWatchdog(uint64(limits.MemoryBudget))
	}
	n := opts.MaxConcurrentCalls
	if n <= 0 {
		n = defaultConcurrentCalls()
	}
	l.gate = bindings.NewGate(n, n/2, n/4)
	l.names = sync.OnceValue(func() *luaNames { return readLuaNames(l.modules, l.opts.Limits) })
	return l
}

// Options returns the options the loader runs with.
func (l *Loader) Options() Options { return l.opts }

// Match reports whether a file name in a tool directory is a Lua tool: a .lua file
// that is not a test (*_test.lua), a type definition (*.d.lua) or hidden.
func (l *Loader) Match(name string) bool {
	return strings.HasSuffix(name, ".lua") && !strings.HasSuffix(name, "_test.lua") &&
		!strings.HasSuffix(name, ".d.lua") && !strings.HasPrefix(name, ".")
}

// SharedDir is the directory of a tool directory whose files its tool files may
// use: lib/, of Lua modules.
func (l *Loader) SharedDir() string { return LibDir }

// Load turns one Lua file into what it defines, as the package documentation says:
// a tool's ToolDef; a hook file's (Hook set), when its table has an event; a
// prompt's or resource's (Feature set, see feature.go), when its table has kind =
// "prompt" or "resource", read in the same steps as a tool, under the same limits
// and load-phase rules. The diagnostics are the problems found, every one, with
// file and line; when one is an error the ToolDef holds what could be read of the
// file, for the engine to report more, and must be closed.
func (l *Loader) Load(file string, src []byte, env engine.LoadEnv) (engine.ToolDef, []diag.Diagnostic) {
	prog, err := bindings.Compile(file, src, l.opts.Limits)
	if err != nil {
		d := scriptDiagnostic(file, err)
		d.Message += missingCommaHint(src, d.Line, d.Message)
		return engine.ToolDef{Source: file}, []diag.Diagnostic{d}
	}
	libs := newLibrary(env.FS, path.Dir(file), l.opts.Limits, &l.libs)
	pool := bindings.NewPool(prog, bindings.Config{Limits: l.opts.Limits, Modules: l.modules, Watchdog: l.watchdog, LuaModules: libs.lookup})
	vm, err := pool.Get()
	if err != nil {
		pool.Close()
		return engine.ToolDef{Source: file}, []diag.Diagnostic{scriptDiagnostic(file, err)}
	}
	// The state that ran the chunk to read the tool is not kept, but for the tool of
	// KeepStateFor: a tool set holds no Lua state until a tool is called (a state is
	// about 100 KB, and most of a large set is never called in a session). The first
	// call builds one.
	keep := false
	defer func() {
		if keep {
			pool.Put(vm)
		} else {
			vm.Close()
		}
	}()
	lt := &luaTool{file: file, src: src, pool: pool, gate: l.gate, env: env.Env}
	if tbl, ok := vm.Main.(*lua.LTable); ok {
		switch kind := tbl.RawGetString("kind"); kind {
		case lua.LNil: // a tool
		case lua.LString("prompt"), lua.LString("resource"):
			// Nothing it runs touches the world, and no tool's env is its own.
			lt.env, lt.sealed = nil, true
			def, diags := lt.defineFeature(string(kind.(lua.LString)), tbl)
			if l.opts.Lint {
				lf := &lintFile{file: file, names: l.names()}
				if kind == lua.LString("prompt") {
					lf.content = "get"
				}
				diags = append(diags, lf.lint(src)...)
			}
			def.Close = pool.Close
			return def, diags
		default:
			pool.Close()
			return engine.ToolDef{Source: file}, []diag.Diagnostic{{Pos: srcpos.Pos{File: file, Line: lt.memberLine("kind")},
				Severity: diag.SeverityError, Member: "kind", Message: fmt.Sprintf(`kind must be "prompt" or "resource" (or absent, for a tool), got %s`, typeName(kind))}}
		}
	}
	define := lt.define
	hook := isHookFile(vm.Main)
	if hook {
		define = lt.defineHook // a hook file (hook.go), not a tool
	}
	def, diags := define(vm)
	if !hook {
		// A call's members run on one state (crossing.go).
		def.Crossing = lt.newCrossing
		diags = append(diags, refusals(lt, &def)...)
	}
	if l.opts.Lint {
		diags = append(diags, l.lint(lt, &def, hook)...)
	}
	lt.name = def.Name
	def.Close = pool.Close
	keep = def.Name != "" && def.Name == l.opts.KeepStateFor && !diag.HasErrors(diags)
	return def, diags
}

// Limits returns the limits the loader's states run under, defaults filled in.
func (l *Loader) Limits() bindings.Limits { return l.opts.Limits.WithDefaults() }

// Roots returns the directories the host modules reach on the file system
// (bindings.Module.Roots), each once, in order: engine.New refuses an engine whose
// roots are not these.
func (l *Loader) Roots() []string {
	var roots []string
	for _, m := range l.required {
		for _, r := range m.Roots {
			if !slices.Contains(roots, r) {
				roots = append(roots, r)
			}
		}
	}
	return roots
}

// Modules returns the modules tools may require besides the loader's own (tools,
// env): the host's and the pure ones. The slice must not be modified.
func (l *Loader) Modules() []*bindings.Module { return l.required }

// ToolModules returns every module a tool file may require besides json: the host's
// (Modules) and the loader's own (tools, env). The slice must not be modified.
func (l *Loader) ToolModules() []*bindings.Module { return l.modules }

// LuaModules returns a resolver of the Lua modules of a tool directory, as tool files
// of it require them, for hosts that run other Lua code beside the tools (luatool
// test runs test files with it); base names the directory in messages.
func (l *Loader) LuaModules(fsys fs.FS, base string) func(name string) (*bindings.Program, error) {
	return newLibrary(fsys, base, l.opts.Limits, &l.libs).lookup
}

// Of returns the Lua loader among an engine's loaders, or nil.
func Of(eng *engine.Engine) *Loader {
	for _, ld := range eng.Options().Loaders {
		if l, ok := ld.(*Loader); ok {
			return l
		}
	}
	return nil
}
