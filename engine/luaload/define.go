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
// table left open ("'}' expected", as Lua words it) at the start of a field whose
// previous line ends without a comma.
func missingCommaHint(src []byte, line int, msg string) string {
	lines := strings.Split(string(src), "\n")
	if !strings.HasPrefix(msg, "'}' expected") || line < 2 || line > len(lines) || !fieldStart.MatchString(lines[line-1]) {
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

	for _, m := range engine.Members() {
		v := get(m.Name)
		if v == lua.LNil {
			continue
		}
		given, err := lt.memberValue(vm, m, v)
		if err == nil && given != nil {
			err = m.Define(&def, given)
		}
		if err != nil {
			problem(diag.SeverityError, m.Name, "%v", err)
		}
	}
	if v, ok := get("maxResultSizeChars").(lua.LNumber); ok && (v <= 0 || math.IsNaN(float64(v))) {
		problem(diag.SeverityError, "maxResultSizeChars", "maxResultSizeChars must be positive (math.huge: never persist), got %v", v)
	}
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

// with runs fn on a state under ctx, with the call's log going to cc.Log; member is
// the member fn calls, as tracebacks name it; c, a zero Call, is filled in to run it
// under, with what cc.Grant gives the member. The state is x's, the call's crossing,
// when x is set, and otherwise one taken from the pool for fn alone. The call holds a
// slot of the gate while fn runs, and only then.
func (lt *luaTool) with(ctx context.Context, cc *engine.CallContext, member string, c *bindings.Call, x *crossing, fn func(vm *bindings.VM, c *bindings.Call) error) error {
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
	var vm *bindings.VM
	var err error
	if x != nil {
		vm, err = x.state()
	} else {
		vm, err = lt.pool.Get()
		if err == nil {
			defer lt.pool.Put(vm)
		}
	}
	if err != nil {
		return err
	}
	// A state whose member panicked out of fn is not trusted with another: this runs
	// before the state goes back, to the pool or to the crossing.
	done := false
	defer func() {
		if !done {
			vm.Discard()
		}
	}()
	g := cc.Grant(member)
	c.Context, c.Entry = ctx, member
	c.Access = bindings.AccessRead
	switch {
	case lt.sealed:
		c.Access = bindings.AccessNone
	case g.Write:
		c.Access = bindings.AccessWrite
	}
	c.Log, c.Files, c.Session = g.Log, g.Files, g.Session
	c.Hidden, c.HiddenBelow = g.Hidden, g.HiddenBelow
	c.OnClose, c.Progress = g.OnClose, g.Progress
	if g.Show {
		c.Show = cc
	}
	c.Network, c.NetworkGranted = g.Network, g.NetworkGranted
	vm.SetHostValue(currentCall{}, cc)
	vm.SetHostValue(runningTool{}, lt)
	defer vm.SetHostValue(currentCall{}, (*engine.CallContext)(nil))
	err = fn(vm, c)
	done = true
	return err
}

// member returns the value of a member in the state's copy of the tool table.
func member(vm *bindings.VM, name string) lua.LValue {
	return vm.Main.(*lua.LTable).RawGetString(name)
}

// invoke calls member name with args built on a pooled state and hands the results
// to use.
func (lt *luaTool) invoke(ctx context.Context, cc *engine.CallContext, name string, args func(vm *bindings.VM) (memberArgs, error), use func(vm *bindings.VM, out []lua.LValue) error) error {
	return lt.invokeOn(ctx, cc, name, nil, args, use)
}

// invokeOn is invoke on x's state when x, the call's crossing, is set.
func (lt *luaTool) invokeOn(ctx context.Context, cc *engine.CallContext, name string, x *crossing, args func(vm *bindings.VM) (memberArgs, error), use func(vm *bindings.VM, out []lua.LValue) error) error {
	return lt.invokeWithCall(ctx, cc, name, new(bindings.Call), x, args, func(vm *bindings.VM, _ *bindings.Call, out []lua.LValue) error {
		return use(vm, out)
	})
}

// invokeWithCall is invoke for a use that calls back into Lua on the same state and
// needs the call it runs under: c, a zero Call of the caller's.
func (lt *luaTool) invokeWithCall(ctx context.Context, cc *engine.CallContext, name string, c *bindings.Call, x *crossing, args func(vm *bindings.VM) (memberArgs, error), use func(vm *bindings.VM, c *bindings.Call, out []lua.LValue) error) error {
	return lt.with(ctx, cc, name, c, x, func(vm *bindings.VM, c *bindings.Call) error {
		fn := member(vm, name)
		if fn.Type() != lua.LTFunction {
			// A crossing asks a member by name; one of the wrong kind was reported
			// when the tool loaded, and fails as its answer would.
			return wrongKind(name, fn)
		}
		var argv memberArgs
		if args != nil {
			var err error
			if argv, err = args(vm); err != nil {
				return err
			}
		}
		out, err := vm.Call(c, fn, argv.v[:argv.n]...)
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
