package bindings

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/luatool/luatool/session/filestate"

	"github.com/luatool/luatool/engine/srcpos"

	"github.com/luatool/luatool/internal/spell"

	lua "github.com/yuin/gopher-lua"
)

// Config is what a VM is built from. It is read, never modified, by NewVM.
type Config struct {
	// Limits bound the VM; zero fields take their defaults.
	Limits Limits
	// Modules are the host modules scripts may require, in addition to json.
	// Two modules with one name are a programming error: NewVM panics.
	Modules []*Module
	// Watchdog, if set, stops calls when the heap passes its budget.
	Watchdog *Watchdog
	// LuaModules, if set, finds the Lua modules scripts may require by name, after the
	// host modules and json: the compiled program, nil when there is no such module,
	// or an error (a module that does not compile). A module's program runs once per
	// state, in an environment of its own, and its first result is what require
	// returns.
	LuaModules func(name string) (*Program, error)
}

// A VM is one sandboxed Lua state with the libraries of the allow-list open. It must
// be used by one goroutine at a time. A VM whose call failed should be discarded
// (Pool does this); see Broken.
type VM struct {
	// L is the underlying state. Host functions receive it; code that drives a VM
	// should use Call rather than L directly.
	L *lua.LState
	// Main is the first value the program's main chunk returned, set by Run.
	Main lua.LValue

	limits     Limits
	modules    map[string]*Module
	luaModules func(name string) (*Program, error)
	// requiring holds the Lua modules being loaded, to refuse a cycle.
	requiring map[string]bool
	loaded    map[string]lua.LValue
	arrayMeta *lua.LTable
	null      *lua.LUserData
	chunk     string
	watchdog  *Watchdog
	call      *Call
	// stubs are the Stubs of the running call's context, nil for most calls.
	stubs     Stubs
	broken    bool
	hostPanic *HostPanic
	// coroutinesEver counts the coroutines the state has created: a Pool retires a
	// state that has made many, since a tool file's locals may keep them all.
	coroutinesEver int
	// converted counts the values ToLua has made, so that a long conversion looks at
	// the context as it goes.
	converted int
	// corrupt is set when gopher-lua itself failed inside a call: the state must not
	// be touched again, only dropped.
	corrupt bool
	// tracer is the error handler of every call: it records a bounded traceback.
	// Without a handler gopher-lua builds its own, one line per tail call before it
	// cuts the list, which after a tail-call loop takes gigabytes and seconds past
	// the deadline.
	tracer    *lua.LFunction
	silent    *lua.LFunction
	traceback string
	hostData  map[any]any
	// moduleData are the opened modules whose data values are copied afresh for
	// every call.
	moduleData []openModule
	// locked maps each read-only view to the table behind it.
	locked map[*lua.LTable]*lua.LTable
	// protected counts, per thread, the pcalls in progress: a yield across one is
	// refused.
	protected map[*lua.LState]int
	// owner says when a Lua function handed to Go may run (see callback.go).
	owner stateOwner
}

// Access is what the code of a call may have host functions do, from nothing to
// changing the world. Host modules that are not Pure refuse every function below
// AccessRead; functions that change anything (fs writes, commands) check for
// AccessWrite themselves, with Require.
type Access int

// The access levels, in order.
const (
	// AccessNone is the load phase: a tool file's main chunk, and a Lua module's. It
	// may only build values: host functions that read or touch the world refuse. It
	// is also the access of functions that only compute (Call.Entry names them).
	AccessNone Access = iota
	// AccessRead is for the questions a tool answers (isReadOnly, prompt,
	// checkPermissions, ...) and for the call of a tool that is read-only for its
	// input: reading inside the roots, never a change.
	AccessRead
	// AccessWrite is for the call of a tool that is not read-only for its input, once
	// its permission decision allowed it.
	AccessWrite
)

// Require raises the refusal of a host function fn ("fs.write") when the current
// call has less than need, naming why: the load phase, or the member that runs
// (Call.Entry). It returns when the call has the access.
func Require(L *lua.LState, fn string, need Access) {
	c := CurrentCall(L)
	have, entry := AccessNone, ""
	if c != nil {
		have, entry = c.Access, c.Entry
	}
	if have >= need {
		return
	}
	switch {
	case have == AccessNone && entry != "":
		// A function run with no access (a prompt's get, a resource's read).
		L.RaiseError("%s is not available in %s, which may only compute: nothing asks permission for what it reads", fn, entry)
	case have == AccessNone:
		L.RaiseError("%s is not available while the tool file loads: call it from call()", fn)
	case entry == "" || entry == "call":
		L.RaiseError("%s is not available in this call: the tool is read-only for this input", fn)
	default:
		L.RaiseError("%s is not available in %s: only call() may change anything", fn, entry)
	}
}

// A Shower records that a call shows the model a file (Call.Show): an interface
// rather than a function, so that a host hands its record of the call as it is,
// without making a function for each call.
type Shower interface {
	Show(path string, e filestate.Entry)
}

// A Logger receives the lines a call logs (Call.Log): an interface rather than a
// function, as Shower is, so that a host hands its record of the call as it is,
// without making a function for each call.
type Logger interface {
	Log(line string)
}

// LogFunc is a Logger that hands each line to a function, for a host whose log is
// one of its own making.
type LogFunc func(line string)

// Log calls f.
func (f LogFunc) Log(line string) { f(line) }

// A Call carries what one call of a script needs from its host: the context that
// bounds it, the sink for print and ctx:log, and values host functions look up with
// CurrentCall. The zero Call is usable; its output is discarded.
type Call struct {
	// Context bounds the call. Nil means context.Background.
	Context context.Context
	// Log receives each line written with print. Nil discards them.
	Log Logger
	// Access is what host functions may do for the code that runs. The zero value is
	// AccessNone, the load phase: a Call that does not say otherwise reaches nothing.
	Access Access
	// Files is the session's readFileState, for the host functions that read and
	// write files: they check it before a write and record what they wrote. Nil keeps
	// no record (and a write that needs one is refused).
	Files filestate.Store
	// Show, if set, records that the call shows the model a file (path absolute and
	// clean), as fs.read and fs.lines do with record = true. The host commits the
	// records to Files only when the call succeeds: a call that read a file and then
	// failed has shown the model nothing.
	Show Shower
	// Entry names the function the host calls (a tool's member, such as "call"), for
	// the outermost frame of a traceback. Empty means unnamed.
	Entry string
	// Hidden, if set, reports whether a path (absolute and clean) must be hidden from
	// the call: a Read deny rule matches it. Host functions that list or search files
	// skip such paths, from several goroutines at once (a parallel directory walk):
	// it must be safe for concurrent use. Nil hides nothing.
	Hidden func(absPath string) bool
	// HiddenBelow, if set, reports whether Hidden may hold for a directory (absolute
	// and clean) or for a path below it, one there now or one made later: the kernel
	// sandbox grants a shell command a directory for which it is false as a whole, and
	// walks the others entry by entry with Hidden. It may be true where nothing is
	// hidden, never false where something may be. Nil with Hidden set means every
	// directory may hide something; it must be safe for concurrent use.
	HiddenBelow func(absDir string) bool
	// Network lists the hosts the call may reach through host modules that use the
	// network (http): patterns of package netpolicy, from the tool's network member,
	// or the hosts its permission decision covered (NetworkGranted) for a tool that
	// declares "*". Nil reaches no host. Loaders set it for a tool's call only.
	Network []string
	// NetworkGranted says that Network holds the hosts a permission granted rather
	// than the tool's declaration, for the wording of refusals.
	NetworkGranted bool
	// Progress, if set, reports the call's progress (a JSON value) to the host, as a
	// long download does. Nil drops it.
	Progress func(data any)
	// Session identifies the session the call runs in (a principal's: see
	// engine.Principal). Host functions that keep what a call starts beyond the
	// call, as the shell module keeps background commands, keep it by session, so
	// that no session sees or stops another's. "" is a session of its own.
	Session string
	// OnClose, if set, registers fn to run when the host ends everything its calls
	// started (engine.Engine.Close); cancel unregisters it, for what ended by itself.
	// Nil means the host ends nothing after the call, and host functions that would
	// start something outliving the call refuse: such a thing would run unbounded.
	OnClose func(fn func()) (cancel func())
	// Slot is the call's place in its host's Gate, when the host bounds the calls
	// that run Lua code at once (Gate.Enter). Host functions that wait for the world
	// give it back meanwhile, through Blocking.
	Slot Slot

	logged     int
	coroutines int
	// results hold the results of the first Call made with this Call, when they fit:
	// those of later ones (a function the host calls back with the same Call) are
	// allocated, so that no slice handed out is written again.
	results     [2]lua.LValue
	resultsLent bool
}

const registryVMKey = "luatool.vm"

// NewVM builds a sandboxed state. See the package documentation for what it opens.
func NewVM(cfg Config) *VM {
	limits := cfg.Limits.WithDefaults()
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       256,
		RegistrySize:        1024,
		RegistryMaxSize:     1024 * 1024,
		RegistryGrowStep:    1024,
		MinimizeStackMemory: true,
	})
	vm := &VM{L: L, limits: limits, watchdog: cfg.Watchdog, luaModules: cfg.LuaModules, modules: map[string]*Module{}, loaded: map[string]lua.LValue{}, locked: map[*lua.LTable]*lua.LTable{}, protected: map[*lua.LState]int{}}
	if err := CheckModules(cfg.Modules); err != nil {
		panic("bindings: " + err.Error())
	}
	for _, m := range cfg.Modules {
		vm.modules[m.Name] = m
	}
	vm.tracer = L.NewFunction(vm.recordTraceback)
	vm.silent = L.NewFunction(silentHandler)
	vm.openLibraries()
	vm.arrayMeta = L.NewTable()
	vm.arrayMeta.RawSetString("__metatable", lua.LString("json.array"))
	vm.null = L.NewUserData()
	vm.null.Value = jsonNull{}
	nullMeta := L.NewTable()
	nullMeta.RawSetString("__metatable", lua.LString("json.null"))
	nullMeta.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("null"))
		return 1
	}))
	vm.null.Metatable = nullMeta
	ud := L.NewUserData()
	ud.Value = vm
	L.G.Registry.RawSetString(registryVMKey, ud)
	return vm
}

type jsonNull struct{}

// openLibraries opens the allow-list. Functions of the base library that read files,
// reach other environments, compile code at run time or write to stdout are removed.
func (vm *VM) openLibraries() {
	L := vm.L
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
		{lua.OsLibName, lua.OpenOs},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	for _, name := range []string{"dofile", "loadfile", "load", "loadstring", "getfenv", "setfenv",
		"collectgarbage", "module", "newproxy", "_printregs", "_GOPHER_LUA_VERSION"} {
		g.RawSetString(name, lua.LNil)
	}
	safeOS := L.NewTable()
	if os, ok := g.RawGetString("os").(*lua.LTable); ok {
		for _, name := range []string{"time", "clock", "date", "difftime"} {
			safeOS.RawSetString(name, os.RawGetString(name))
		}
	}
	g.RawSetString("os", safeOS)
	// gopher-lua's math.huge is the largest float; Lua's is infinity, and so is ours,
	// so that math.huge means "unbounded" and is refused as a JSON number.
	if m, ok := g.RawGetString("math").(*lua.LTable); ok {
		m.RawSetString("huge", lua.LNumber(math.Inf(1)))
	}
	if str, ok := g.RawGetString("string").(*lua.LTable); ok {
		str.RawSetString("dump", lua.LNil)
	}
	g.RawSetString("print", L.NewFunction(vm.print))
	g.RawSetString("pcall", L.NewFunction(vm.pcall))
	g.RawSetString("xpcall", L.NewFunction(vm.xpcall))
	g.RawSetString("require", L.NewFunction(vm.require))
	vm.boundLibraries()
	vm.lockLibraries()
}

// print joins its arguments with tabs, as Lua's print does, and sends the line to the
// current call's log.
func (vm *VM) print(L *lua.LState) int {
	if vm.LogFull() {
		return 0
	}
	n := L.GetTop()
	parts := make([]string, n)
	for i := 1; i <= n; i++ {
		parts[i-1] = L.ToStringMeta(L.Get(i)).String()
	}
	vm.Log(strings.Join(parts, "\t"))
	return 0
}

// LogFull reports whether the current call's log has no room left, so that print and
// ctx:log need not even build what they would drop.
func (vm *VM) LogFull() bool {
	c := vm.call
	return c == nil || c.Log == nil || c.logged >= vm.limits.MaxLogBytes
}

// Log writes one line to the current call's log, within the log limit, and
// returns what it wrote: the line, cut short where the limit falls, or "" when the
// log has no room (or the call no log).
func (vm *VM) Log(line string) string {
	c := vm.call
	if c == nil || c.Log == nil {
		return ""
	}
	if c.logged >= vm.limits.MaxLogBytes {
		return ""
	}
	if c.logged+len(line) > vm.limits.MaxLogBytes {
		cut := vm.limits.MaxLogBytes - c.logged
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut] + " ... [log truncated]"
	}
	c.logged += len(line)
	c.Log.Log(line)
	return line
}

func (vm *VM) require(L *lua.LState) int {
	name := L.CheckString(1)
	if v, ok := vm.loaded[name]; ok {
		L.Push(v)
		return 1
	}
	var v lua.LValue
	if name == jsonModuleName {
		v = vm.ReadOnly(vm.openJSON(), "the json module")
	} else if m, ok := vm.modules[name]; ok {
		v = vm.ReadOnly(m.open(vm), "the "+name+" module")
	} else if prog, err := vm.lookupLuaModule(name); err != nil {
		L.RaiseError("require %q: %v", name, err)
	} else if prog != nil {
		v = vm.runLuaModule(L, name, prog)
	} else {
		names := []string{jsonModuleName}
		for n := range vm.modules {
			names = append(names, n)
		}
		sort.Strings(names)
		msg := "module '" + name + "' not found"
		if s := spell.Suggest(name, names); s != "" {
			msg += " (did you mean '" + s + "'?)"
		}
		L.RaiseError("%s; available modules: %s", msg, strings.Join(names, ", "))
	}
	vm.loaded[name] = v
	L.Push(v)
	return 1
}

// lookupLuaModule finds a Lua module by name; nil when there is none.
func (vm *VM) lookupLuaModule(name string) (*Program, error) {
	if vm.luaModules == nil {
		return nil, nil
	}
	return vm.luaModules(name)
}

// runLuaModule runs a Lua module's program on the state, in an environment of its
// own that is locked afterwards, and returns its first result (true when it returns
// nothing), as Lua's require does. It runs under the requiring code's call, with that
// call's access: a module required by a tool file's main chunk loads in the load
// phase.
func (vm *VM) runLuaModule(L *lua.LState, name string, prog *Program) lua.LValue {
	if vm.requiring[name] {
		L.RaiseError("require %q: the module requires itself (a cycle)", name)
	}
	if vm.requiring == nil {
		vm.requiring = map[string]bool{}
	}
	vm.requiring[name] = true
	defer delete(vm.requiring, name)
	fn := L.NewFunctionFromProto(prog.proto)
	env := vm.newEnvironment()
	fn.Env = env
	L.Push(fn)
	L.Call(0, 1)
	v := L.Get(-1)
	L.Pop(1)
	vm.lockEnvironment(env)
	if v == lua.LNil {
		v = lua.LTrue
	}
	return v
}

// CurrentCall returns the Call a host function runs under, or nil outside any call
// (while a program's main chunk runs, for example).
func CurrentCall(L *lua.LState) *Call {
	ud, ok := L.G.Registry.RawGetString(registryVMKey).(*lua.LUserData)
	if !ok {
		return nil
	}
	return ud.Value.(*VM).call
}

// VMOf returns the VM that owns L.
func VMOf(L *lua.LState) *VM {
	ud := L.G.Registry.RawGetString(registryVMKey).(*lua.LUserData)
	return ud.Value.(*VM)
}

// HostValue returns the value a host stored with this VM under key, or nil. Hosts use
// it to keep per-state objects (a prepared table, a cache) across calls.
func (vm *VM) HostValue(key any) any { return vm.hostData[key] }

// SetHostValue stores v with this VM under key; keys should be unexported types, as
// with context values.
func (vm *VM) SetHostValue(key, v any) {
	if vm.hostData == nil {
		vm.hostData = map[any]any{}
	}
	vm.hostData[key] = v
}

// Null returns this VM's json.null sentinel.
func (vm *VM) Null() lua.LValue { return vm.null }

// Discard marks the VM broken, so that a Pool closes it instead of reusing it: its
// host found something wrong with what a call returned.
func (vm *VM) Discard() { vm.broken = true }

// Broken reports whether a call on this VM failed, timed out or panicked; such a VM
// must not be reused.
func (vm *VM) Broken() bool { return vm.broken }

// Close releases the state.
func (vm *VM) Close() {
	if !vm.corrupt {
		vm.L.Close()
	}
}

// Limits returns the limits the VM runs under, defaults filled in: host functions
// bound their own work by them (a file read by MaxStringBytes, say).
func (vm *VM) Limits() Limits { return vm.limits }

// Call runs fn with args under c and returns its results (all of them). Any failure
// is a *ScriptError and marks the VM broken. The results of the first Call made with
// c may be held in c.
func (vm *VM) Call(c *Call, fn lua.LValue, args ...lua.LValue) ([]lua.LValue, error) {
	if c == nil {
		c = &Call{}
	}
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, &ScriptError{Pos: srcpos.Pos{File: vm.chunk}, Message: "execution stopped: " + describeContextErr(err), Cause: err}
	}
	if vm.watchdog != nil {
		watched, owned := vm.watchdog.watch(ctx)
		defer vm.watchdog.unwatch(watched, owned)
		ctx = watched
	}
	L := vm.L
	// The outermost call owns the state; a call made inside it, by a host function
	// that left the state free, takes it until it returns.
	if vm.call == nil {
		vm.owner.begin()
		defer vm.owner.end()
	} else if vm.owner.takeNested() {
		defer vm.owner.release()
	}
	outerStubs := vm.stubs
	vm.call, vm.stubs = c, stubsOf(ctx)
	vm.refreshModuleData()
	L.SetContext(ctx)
	defer func() {
		L.RemoveContext()
		vm.call, vm.stubs = nil, outerStubs
	}()
	base := L.GetTop()
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	vm.traceback = ""
	if err := vm.protectedCall(len(args)); err != nil {
		vm.broken = true
		if !vm.corrupt {
			L.SetTop(base)
		}
		se := newScriptError(err, vm.chunk, ctx)
		se.Traceback = vm.traceback
		if se.Line == 0 {
			se.Line = lineFromTraceback(se.Traceback, vm.chunk)
		}
		if vm.hostPanic != nil && se.Cause == nil {
			se.Cause = vm.hostPanic
		}
		return nil, se
	}
	if err := ctx.Err(); err != nil {
		// The script caught the cancellation with pcall and returned: a result that
		// arrives after the deadline is not a result.
		vm.broken = true
		L.SetTop(base)
		return nil, newScriptError(&lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(err.Error())}, vm.chunk, ctx)
	}
	n := L.GetTop() - base
	var out []lua.LValue
	if n <= len(c.results) && !c.resultsLent {
		out, c.resultsLent = c.results[:n:n], true
	} else {
		out = make([]lua.LValue, n)
	}
	for i := 0; i < n; i++ {
		out[i] = L.Get(base + 1 + i)
	}
	L.SetTop(base)
	return out, nil
}

// protectedCall is L.PCall, with a last line of defence: gopher-lua can panic inside
// PCall's own recovery (a registry overflow while it handles an error), which would
// otherwise take the host down. Such a state is broken for good.
func (vm *VM) protectedCall(nargs int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			vm.corrupt = true
			err = &lua.ApiError{Type: lua.ApiErrorPanic, Object: lua.LString(fmt.Sprintf("the Lua state failed: %v", r))}
		}
	}()
	return vm.L.PCall(nargs, lua.MultRet, vm.tracer)
}

// A Pool keeps VMs that have run one program's main chunk, so a call finds the
// program's returned value ready. Get and Put are safe for concurrent use; each VM
// handed out serves one goroutine until it is put back.
type Pool struct {
	prog *Program
	cfg  Config

	mu     sync.Mutex
	idle   []*VM
	closed bool
}

// NewPool returns an empty pool for prog; VMs are built on demand.
func NewPool(prog *Program, cfg Config) *Pool {
	cfg.Limits = cfg.Limits.WithDefaults()
	p := &Pool{prog: prog, cfg: cfg}
	if cfg.Watchdog != nil {
		cfg.Watchdog.register(p)
	}
	return p
}

// dropIdle closes the idle states; the pool builds new ones as needed.
func (p *Pool) dropIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, vm := range idle {
		vm.Close()
	}
}

// Get returns an idle VM or builds one and runs the program on it. The program's
// first return value is in vm.Main.
func (p *Pool) Get() (*VM, error) {
	if p.cfg.Limits.FreshStates {
		return p.build()
	}
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		vm := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return vm, nil
	}
	p.mu.Unlock()
	return p.build()
}

func (p *Pool) build() (*VM, error) {
	vm := NewVM(p.cfg)
	if err := vm.Run(p.prog); err != nil {
		vm.Close()
		return nil, err
	}
	return vm, nil
}

// Put returns vm to the pool, or closes it when it is broken, the pool is full or
// closed.
func (p *Pool) Put(vm *VM) {
	p.mu.Lock()
	if vm.broken || p.closed || p.cfg.Limits.FreshStates || len(p.idle) >= p.cfg.Limits.MaxIdleStates ||
		vm.coroutinesEver > retireAfterCoroutines*p.cfg.Limits.MaxCoroutines {
		p.mu.Unlock()
		vm.Close()
		return
	}
	p.idle = append(p.idle, vm)
	p.mu.Unlock()
}

// retireAfterCoroutines is how many calls' worth of coroutines (MaxCoroutines each) a
// state may have created before the pool retires it: the per-call cap cannot see
// coroutines a tool keeps between calls, and each one is a whole Lua thread.
const retireAfterCoroutines = 4

// Close closes the idle VMs; VMs still out are closed when they are put back.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.dropIdle()
	if p.cfg.Watchdog != nil {
		p.cfg.Watchdog.unregister(p)
	}
}
