package luaload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/engine/srcpos"
	"github.com/luatool/luatool/internal/spell"
)

// A luaTool is one loaded version of a Lua tool file: its compiled program and the
// pool of states that have run it.
type luaTool struct {
	file string
	src  []byte
	pool *bindings.Pool
	gate *bindings.Gate
	// env holds the values of the engine's host (env.get); name is the tool's name,
	// which decides which of them it may read, set once the file has loaded.
	env  *env.Set
	name string
	// sealed is set for a prompt or resource: its code may not touch the world
	// (bindings.AccessNone), since no permission check guards what a client reads
	// through it.
	sealed bool

	linesOnce sync.Once
	lines     map[string]int // member -> line, see memberLine
}

func scriptDiagnostic(file string, err error) diag.Diagnostic {
	d := diag.Diagnostic{Pos: srcpos.Pos{File: file}, Severity: diag.SeverityError, Message: err.Error(), Err: err}
	var se *bindings.ScriptError
	if errors.As(err, &se) {
		d.Pos, d.Message = se.Pos, se.Message
		if d.File == "" {
			d.File = file
		}
	}
	return d
}

// fieldStart is a line that starts a table field: "name =" or "[expr] =".
var fieldStart = regexp.MustCompile(`^\s*(\[.*\]|[A-Za-z_][A-Za-z0-9_]*)\s*=[^=]`)

// missingCommaHint returns a hint for the most common mistake in a tool table: a
// syntax error at the start of a field whose previous line ends without a comma.
func missingCommaHint(src []byte, line int, msg string) string {
	lines := strings.Split(string(src), "\n")
	if !strings.Contains(msg, "syntax error") || line < 2 || line > len(lines) || !fieldStart.MatchString(lines[line-1]) {
		return ""
	}
	prev := strings.TrimSpace(lines[line-2])
	if i := strings.Index(prev, "--"); i >= 0 {
		prev = strings.TrimSpace(prev[:i])
	}
	if prev == "" || strings.HasSuffix(prev, ",") || strings.HasSuffix(prev, ";") || strings.HasSuffix(prev, "{") {
		return ""
	}
	return fmt.Sprintf(" (is a comma missing at the end of line %d?)", line-1)
}

// aliasesKind and networkKind are the kinds of the aliases and network members.
var (
	aliasesKind = func() engine.MemberKind { m, _ := engine.LookupMember("aliases"); return m.Kind }()
	networkKind = func() engine.MemberKind { m, _ := engine.LookupMember("network"); return m.Kind }()
)

// memberNames are the names of the contract's members, for hints.
var memberNames = func() []string {
	var names []string
	for _, m := range engine.Members() {
		names = append(names, m.Name)
	}
	return names
}()

// define checks the table the chunk returned against the contract and builds the
// ToolDef around it. Every member of the right kind is taken, even when another is
// wrong, so that one mistake does not hide the next: the engine's Build then reports
// what is missing or invalid, and check shows every problem at once.
func (lt *luaTool) define(vm *bindings.VM) (engine.ToolDef, []diag.Diagnostic) {
	var diags []diag.Diagnostic
	problem := func(sev diag.Severity, member, format string, args ...any) {
		diags = append(diags, diag.Diagnostic{Pos: srcpos.Pos{File: lt.file, Line: lt.memberLine(member)},
			Severity: sev, Member: member, Message: fmt.Sprintf(format, args...)})
	}
	def := engine.ToolDef{Source: lt.file, MemberLine: lt.memberLine, MaxInputDepth: vm.Limits().MaxDepth}
	tbl, ok := vm.Main.(*lua.LTable)
	if !ok {
		problem(diag.SeverityError, "", "the file must return a table (the tool), not %s", typeName(vm.Main))
		return def, diags
	}

	var keys []string
	badKey := false
	tbl.ForEach(func(k, _ lua.LValue) {
		s, ok := k.(lua.LString)
		if !ok {
			if !badKey {
				problem(diag.SeverityError, "", "the tool table has a key of type %s; members are named by strings", k.Type())
			}
			badKey = true
			return
		}
		keys = append(keys, string(s))
	})
	sort.Strings(keys)
	for _, k := range keys {
		if _, known := engine.LookupMember(k); known || strings.HasPrefix(k, "_") {
			continue
		}
		msg := fmt.Sprintf("unknown member %q", k)
		if s := spell.Suggest(k, memberNames); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		problem(diag.SeverityError, k, "%s; private fields must start with _", msg)
	}

	get := func(name string) lua.LValue { return tbl.RawGetString(name) }
	// A member present with a kind it may not have is an error, or for a question the
	// defaults table answers fail-closed, a warning: it is then treated as failing.
	for _, m := range engine.Members() {
		v := get(m.Name)
		if v == lua.LNil || kindMatches(m.Kind, v) {
			continue
		}
		sev, tail := diag.SeverityError, ""
		if m.FailsClosed {
			sev, tail = diag.SeverityWarning, "; it will be treated as failing (the safe answer)"
		}
		problem(sev, m.Name, "%s must be %s, got %s%s", m.Name, m.Kind, typeName(v), tail)
	}

	if v, ok := get("name").(lua.LString); ok {
		def.Name = string(v)
	}
	if v, ok := get("aliases").(*lua.LTable); ok && kindMatches(aliasesKind, v) {
		for i := 1; i <= v.Len(); i++ {
			def.Aliases = append(def.Aliases, lua.LVAsString(v.RawGetInt(i)))
		}
	}
	if v, ok := get("network").(*lua.LTable); ok && kindMatches(networkKind, v) {
		for i := 1; i <= v.Len(); i++ {
			def.Network = append(def.Network, lua.LVAsString(v.RawGetInt(i)))
		}
	}
	if v, ok := get("searchHint").(lua.LString); ok {
		def.SearchHint = string(v)
	}
	def.ShouldDefer = lua.LVAsBool(get("shouldDefer"))
	def.AlwaysLoad = lua.LVAsBool(get("alwaysLoad"))
	def.Hints = engine.Hints{
		ReadOnly: staticBool(get("isReadOnly")), Destructive: staticBool(get("isDestructive")),
		OpenWorld: staticBool(get("isOpenWorld")), Idempotent: staticBool(get("isIdempotent")),
		ConcurrencySafe: staticBool(get("isConcurrencySafe")),
	}
	if v, ok := get("maxResultSizeChars").(lua.LNumber); ok {
		def.MaxResultSizeChars = float64(v)
		if def.MaxResultSizeChars <= 0 || math.IsNaN(def.MaxResultSizeChars) {
			problem(diag.SeverityError, "maxResultSizeChars", "maxResultSizeChars must be positive (math.huge: never persist), got %v", v)
		}
	}
	for _, name := range []string{"inputSchema", "outputSchema"} {
		v, ok := get(name).(*lua.LTable)
		if !ok {
			continue
		}
		plain, err := vm.FromLua(v)
		if err != nil {
			problem(diag.SeverityError, name, "%s is not a JSON value: %v", name, err)
			continue
		}
		obj, ok := plain.(map[string]any)
		if !ok {
			problem(diag.SeverityError, name, "%s must be a table with string keys (a JSON Schema object)", name)
			continue
		}
		if name == "inputSchema" {
			def.InputSchema = obj
		} else {
			def.OutputSchema = obj
		}
	}
	lt.defineFunctions(&def, get)
	return def, diags
}

// kindMatches reports whether a Lua value is of a member kind.
func kindMatches(k engine.MemberKind, v lua.LValue) bool {
	if v.Type() == lua.LTFunction {
		return k.Func
	}
	switch k.Value {
	case "string":
		s, ok := v.(lua.LString)
		return ok && (len(k.Values) == 0 || slices.Contains(k.Values, string(s)))
	case "boolean":
		return v.Type() == lua.LTBool
	case "number":
		return v.Type() == lua.LTNumber
	case "schema":
		return v.Type() == lua.LTTable
	case "strings":
		t, ok := v.(*lua.LTable)
		if !ok {
			return false
		}
		n := 0
		good := true
		t.ForEach(func(_, e lua.LValue) {
			n++
			if e.Type() != lua.LTString {
				good = false
			}
		})
		return good && n == t.Len()
	}
	return false
}

func typeName(v lua.LValue) string {
	if v == nil {
		return "nil"
	}
	if s, ok := v.(lua.LString); ok {
		return fmt.Sprintf("the string %q", string(s))
	}
	return "a " + v.Type().String()
}

// currentCall is the host value of a state that holds the CallContext of the member
// running on it (nil for members that have none): the tools module reads it.
type currentCall struct{}

// runningTool is the host value of a state that holds the luaTool whose member runs
// on it: the env module reads it.
type runningTool struct{}

// with runs fn on a pooled state under ctx, with the call's log going to cc.Log;
// member is the member fn calls, as tracebacks name it; c, a zero Call, is filled in
// to run it under. Only call, of a tool that is not read-only for its input, gets
// write access; every other member reads.
func (lt *luaTool) with(ctx context.Context, cc *engine.CallContext, member string, c *bindings.Call, fn func(vm *bindings.VM, c *bindings.Call) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("not started: %w", err)
	}
	if lt.gate != nil {
		// Slots are shared by principal, then by tool: one principal's calls cannot
		// hold more than its share, whichever tools they call, and within it one
		// tool's calls leave its other tools room.
		if err := lt.gate.Enter(ctx, engine.PrincipalOf(ctx).Name, lt.file, &c.Slot); err != nil {
			return fmt.Errorf("waiting for a free slot to run: %w", err)
		}
		defer c.Slot.Leave()
	}
	vm, err := lt.pool.Get()
	if err != nil {
		return err
	}
	defer lt.pool.Put(vm)
	c.Context, c.Access, c.Entry = ctx, bindings.AccessRead, member
	if lt.sealed {
		c.Access = bindings.AccessNone
	}
	if cc != nil {
		c.Log = cc.Log
		c.Hidden, c.HiddenBelow = cc.HiddenPaths(), cc.HiddenBelow()
		c.Files = cc.Files
		c.Session = cc.Session
		if member == "call" {
			// Only call may start what outlives it: the other members are
			// questions, bounded and read-only.
			c.Show, c.OnClose = cc.Show, cc.Closer()
			c.Progress = cc.Progress
			c.Network, c.NetworkGranted = cc.Network()
		}
		if member == "call" && cc.Writable() {
			c.Access = bindings.AccessWrite
		}
	}
	vm.SetHostValue(currentCall{}, cc)
	vm.SetHostValue(runningTool{}, lt)
	defer vm.SetHostValue(currentCall{}, (*engine.CallContext)(nil))
	return fn(vm, c)
}

// member returns the value of a member in the state's copy of the tool table.
func member(vm *bindings.VM, name string) lua.LValue {
	return vm.Main.(*lua.LTable).RawGetString(name)
}

// invoke calls member name with args built on the state and hands the results to use.
func (lt *luaTool) invoke(ctx context.Context, cc *engine.CallContext, name string, args func(vm *bindings.VM) (memberArgs, error), use func(vm *bindings.VM, out []lua.LValue) error) error {
	return lt.invokeWithCall(ctx, cc, name, new(bindings.Call), args, func(vm *bindings.VM, _ *bindings.Call, out []lua.LValue) error {
		return use(vm, out)
	})
}

// invokeWithCall is invoke for a use that calls back into Lua on the same state and
// needs the call it runs under: c, a zero Call of the caller's.
func (lt *luaTool) invokeWithCall(ctx context.Context, cc *engine.CallContext, name string, c *bindings.Call, args func(vm *bindings.VM) (memberArgs, error), use func(vm *bindings.VM, c *bindings.Call, out []lua.LValue) error) error {
	return lt.with(ctx, cc, name, c, func(vm *bindings.VM, c *bindings.Call) error {
		var argv memberArgs
		if args != nil {
			var err error
			if argv, err = args(vm); err != nil {
				return err
			}
		}
		out, err := vm.Call(c, member(vm, name), argv.v[:argv.n]...)
		if err != nil {
			return err
		}
		err = use(vm, c, out)
		if _, expected := errors.AsType[*CallError](err); err != nil && !expected {
			// The member returned what it may not: whatever it did to the state to
			// get there is not trusted with the next call (a nil, "message" failure
			// is the Lua convention for an expected one, and keeps the state).
			vm.Discard()
		}
		return err
	})
}

func first(out []lua.LValue) lua.LValue {
	if len(out) == 0 {
		return lua.LNil
	}
	return out[0]
}

// memberArgs are the arguments of a member call, held in place: building them
// allocates nothing, where a slice returned by the function that builds them would
// be allocated.
type memberArgs struct {
	v [3]lua.LValue
	n int
}

// argsOf returns the arguments vs, at most three.
func argsOf(vs ...lua.LValue) memberArgs {
	var a memberArgs
	if len(vs) > len(a.v) {
		panic(fmt.Sprintf("luaload: a member call with %d arguments; at most %d are held", len(vs), len(a.v)))
	}
	a.n = copy(a.v[:], vs)
	return a
}

// inputArgs converts the input, and the ctx object when cc is given.
func inputArgs(input map[string]any, cc *engine.CallContext) func(vm *bindings.VM) (memberArgs, error) {
	return func(vm *bindings.VM) (memberArgs, error) {
		in, err := vm.ToLua(input)
		if err != nil {
			return memberArgs{}, err
		}
		if cc == nil {
			return argsOf(in), nil
		}
		return argsOf(in, luaContextFor(vm, cc)), nil
	}
}

// returnError says a member function returned something it may not, at the line
// where the member is given in the tool file.
func (lt *luaTool) returnError(name, want string, got lua.LValue) error {
	return &bindings.ScriptError{Pos: srcpos.Pos{File: lt.file, Line: lt.memberLine(name)},
		Message: fmt.Sprintf("%s returned %s; it must return %s", name, typeName(got), want)}
}

// memberLine returns the line where a member is given in the tool file, or 0. The
// source is parsed again the first time, which only happens when there is something
// to report.
func (lt *luaTool) memberLine(name string) int {
	if name == "" {
		return 0
	}
	lt.linesOnce.Do(func() { lt.lines = memberLines(lt.file, lt.src) })
	return lt.lines[name]
}

// staticBool returns a member's value when it is a plain boolean, for Hints.
func staticBool(v lua.LValue) *bool {
	b, ok := v.(lua.LBool)
	if !ok {
		return nil
	}
	x := bool(b)
	return &x
}
