package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/luatool/luatool/srcpos"

	"github.com/luatool/luatool/internal/spell"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// LuaConfig is what Lua tools are loaded with.
type LuaConfig struct {
	// Limits bound every state of every tool.
	Limits bindings.Limits
	// Modules are the host modules tools may require.
	Modules []*bindings.Module
	// Watchdog, if set, stops calls when the heap passes its budget.
	Watchdog *bindings.Watchdog
	// Gate, if set, bounds how many calls run Lua code at once.
	Gate *bindings.Gate
}

// memberKind says what a contract member may be in Lua.
type memberKind int

const (
	kindString         memberKind = iota // a string
	kindBool                             // a boolean
	kindNumber                           // a number
	kindStrings                          // a list of strings
	kindTable                            // a table (a schema)
	kindFunc                             // a function
	kindStringOrFunc                     // a string, or a function returning one
	kindBoolOrFunc                       // a boolean, or a function returning one
	kindBehaviorOrFunc                   // "cancel"/"block", or a function returning one
)

// members lists every member of the Lua contract and what it may be.
var members = map[string]memberKind{
	"name":                         kindString,
	"aliases":                      kindStrings,
	"searchHint":                   kindString,
	"shouldDefer":                  kindBool,
	"alwaysLoad":                   kindBool,
	"maxResultSizeChars":           kindNumber,
	"inputSchema":                  kindTable,
	"outputSchema":                 kindTable,
	"prompt":                       kindStringOrFunc,
	"description":                  kindStringOrFunc,
	"userFacingName":               kindStringOrFunc,
	"isEnabled":                    kindBoolOrFunc,
	"isReadOnly":                   kindBoolOrFunc,
	"isConcurrencySafe":            kindBoolOrFunc,
	"isDestructive":                kindBoolOrFunc,
	"isOpenWorld":                  kindBoolOrFunc,
	"isIdempotent":                 kindBool,
	"interruptBehavior":            kindBehaviorOrFunc,
	"validateInput":                kindFunc,
	"checkPermissions":             kindFunc,
	"getPath":                      kindFunc,
	"ruleContent":                  kindFunc,
	"toAutoClassifierInput":        kindFunc,
	"call":                         kindFunc,
	"mapResult":                    kindFunc,
	"renderToolUseMessage":         kindFunc,
	"renderToolResultMessage":      kindFunc,
	"renderToolUseProgressMessage": kindFunc,
	"renderToolUseRejectedMessage": kindFunc,
	"renderToolUseErrorMessage":    kindFunc,
}

// MemberNames returns the names of the Lua contract's members, sorted.
func MemberNames() []string {
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var kindText = map[memberKind]string{
	kindString: "a string", kindBool: "a boolean", kindNumber: "a number",
	kindStrings: "a list of strings", kindTable: "a table", kindFunc: "a function",
	kindStringOrFunc: "a string or a function", kindBoolOrFunc: "a boolean or a function",
	kindBehaviorOrFunc: `"cancel", "block" or a function`,
}

// A luaTool is one loaded version of a Lua tool file: its compiled program and the
// pool of states that have run it.
type luaTool struct {
	file string
	src  []byte
	pool *bindings.Pool
	gate *bindings.Gate

	linesOnce sync.Once
	lines     map[string]int // member -> line, see memberLine
}

// LoadLua turns one Lua source file into a ToolDef. The lifecycle:
//
//  1. compile the source once (size limit first, then syntax);
//  2. run the main chunk on a new state (which is closed afterwards: the tool's pool
//     builds states when calls come);
//  3. check the contract: the chunk returned a table, every key is a known member
//     (or starts with _), every member is of a kind it may be, the required ones are
//     there;
//  4. convert the schemas to JSON values (Build compiles them);
//  5. wrap every function member so that each use takes a state from the pool, calls
//     the function under the caller's context, converts the result and gives the
//     state back (a state whose call failed is discarded).
//
// On failure every problem found is returned as a diagnostic with file and line, the
// pool is closed and the ToolDef is unusable. Warnings (members of a wrong kind that
// the defaults table treats fail-closed) come back alongside a usable ToolDef.
func LoadLua(file string, src []byte, cfg LuaConfig) (ToolDef, []Diagnostic) {
	prog, err := bindings.Compile(file, src, cfg.Limits)
	if err != nil {
		d := scriptDiagnostic(file, err)
		d.Message += missingCommaHint(src, d.Line, d.Message)
		return ToolDef{}, []Diagnostic{d}
	}
	pool := bindings.NewPool(prog, bindings.Config{Limits: cfg.Limits, Modules: cfg.Modules, Watchdog: cfg.Watchdog})
	vm, err := pool.Get()
	if err != nil {
		pool.Close()
		return ToolDef{}, []Diagnostic{scriptDiagnostic(file, err)}
	}
	// The state that ran the chunk to read the tool is not kept: a tool set holds no
	// Lua state until a tool is called (a state is about 100 KB, and most of a large
	// set is never called in a session). The first call builds one.
	defer vm.Close()
	lt := &luaTool{file: file, src: src, pool: pool, gate: cfg.Gate}
	def, diags := lt.define(vm, src)
	if HasErrors(diags) {
		pool.Close()
		return ToolDef{}, diags
	}
	def.Close = pool.Close
	return def, diags
}

func scriptDiagnostic(file string, err error) Diagnostic {
	var se *bindings.ScriptError
	if errors.As(err, &se) {
		f := se.File
		if f == "" {
			f = file
		}
		return Diagnostic{Pos: srcpos.Pos{File: f, Line: se.Line}, Severity: SeverityError, Message: se.Message}
	}
	return Diagnostic{Pos: srcpos.Pos{File: file}, Severity: SeverityError, Message: err.Error()}
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

// define checks the table the chunk returned and builds the ToolDef around it.
func (lt *luaTool) define(vm *bindings.VM, src []byte) (ToolDef, []Diagnostic) {
	var diags []Diagnostic
	var lines map[string]int
	problem := func(sev Severity, member, format string, args ...any) {
		if lines == nil {
			lines = memberLines(lt.file, src)
		}
		diags = append(diags, Diagnostic{Pos: srcpos.Pos{File: lt.file, Line: lines[member]}, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	tbl, ok := vm.Main.(*lua.LTable)
	if !ok {
		problem(SeverityError, "", "the file must return a table (the tool), not %s", typeName(vm.Main))
		return ToolDef{}, diags
	}
	def := ToolDef{Source: lt.file}

	var keys []string
	badKey := false
	tbl.ForEach(func(k, _ lua.LValue) {
		s, ok := k.(lua.LString)
		if !ok {
			if !badKey {
				problem(SeverityError, "", "the tool table has a key of type %s; members are named by strings", k.Type())
			}
			badKey = true
			return
		}
		keys = append(keys, string(s))
	})
	sort.Strings(keys)
	for _, k := range keys {
		if _, known := members[k]; known || strings.HasPrefix(k, "_") {
			continue
		}
		msg := fmt.Sprintf("unknown member %q", k)
		if s := spell.Suggest(k, MemberNames()); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		problem(SeverityError, k, "%s; private fields must start with _", msg)
	}

	get := func(name string) lua.LValue { return tbl.RawGetString(name) }
	// checkKind reports a member present with a kind it may not have. For members whose
	// wrong kind the defaults table answers fail-closed, it is a warning.
	checkKind := func(name string, failClosed bool) bool {
		v := get(name)
		if v == lua.LNil || kindMatches(members[name], v) {
			return true
		}
		sev, tail := SeverityError, ""
		if failClosed {
			sev, tail = SeverityWarning, "; it will be treated as failing (the safe answer)"
		}
		problem(sev, name, "%s must be %s, got %s%s", name, kindText[members[name]], typeName(v), tail)
		return false
	}
	for _, name := range []string{"name", "aliases", "searchHint", "shouldDefer", "alwaysLoad", "isIdempotent", "maxResultSizeChars",
		"inputSchema", "outputSchema", "prompt", "validateInput", "checkPermissions", "getPath", "ruleContent",
		"toAutoClassifierInput", "call", "mapResult", "renderToolUseMessage", "renderToolResultMessage",
		"renderToolUseProgressMessage", "renderToolUseRejectedMessage", "renderToolUseErrorMessage"} {
		checkKind(name, false)
	}
	for _, name := range []string{"description", "userFacingName", "isEnabled", "isReadOnly", "isConcurrencySafe",
		"isDestructive", "isOpenWorld", "interruptBehavior"} {
		checkKind(name, true)
	}
	for _, name := range []string{"name", "inputSchema", "prompt", "call"} {
		if get(name) == lua.LNil {
			problem(SeverityError, "", "required member %s is missing", name)
		}
	}

	// Take every member that has the right kind, so that one mistake does not hide
	// the next: check reports them all.
	if v, ok := get("name").(lua.LString); ok {
		def.Name = string(v)
		if err := nameError(def.Name); err != nil {
			problem(SeverityError, "name", "%v", err)
		} else if api, err := APIName(def.Name); err != nil {
			problem(SeverityWarning, "name", "%v; only MCP clients can be offered this tool", err)
		} else if api != def.Name {
			problem(SeverityWarning, "name", "name %q has dots, which the Anthropic and OpenAI APIs refuse: they are offered it as %s", def.Name, api)
		}
	}
	if v, ok := get("aliases").(*lua.LTable); ok {
		for i := 1; i <= v.Len(); i++ {
			def.Aliases = append(def.Aliases, lua.LVAsString(v.RawGetInt(i)))
		}
	}
	if v, ok := get("searchHint").(lua.LString); ok {
		def.SearchHint = string(v)
	}
	def.ShouldDefer = lua.LVAsBool(get("shouldDefer"))
	def.AlwaysLoad = lua.LVAsBool(get("alwaysLoad"))
	def.Hints = Hints{
		ReadOnly: staticBool(get("isReadOnly")), Destructive: staticBool(get("isDestructive")),
		OpenWorld: staticBool(get("isOpenWorld")), Idempotent: staticBool(get("isIdempotent")),
		ConcurrencySafe: staticBool(get("isConcurrencySafe")),
	}
	if v, ok := get("maxResultSizeChars").(lua.LNumber); ok {
		def.MaxResultSizeChars = float64(v)
		if def.MaxResultSizeChars <= 0 || math.IsNaN(def.MaxResultSizeChars) {
			problem(SeverityError, "maxResultSizeChars", "maxResultSizeChars must be positive (math.huge: never persist), got %v", v)
		}
	}
	for _, name := range []string{"inputSchema", "outputSchema"} {
		v, ok := get(name).(*lua.LTable)
		if !ok {
			continue
		}
		plain, err := vm.FromLua(v)
		if err != nil {
			problem(SeverityError, name, "%s is not a JSON value: %v", name, err)
			continue
		}
		obj, ok := plain.(map[string]any)
		if !ok {
			problem(SeverityError, name, "%s must be a table with string keys (a JSON Schema object)", name)
			continue
		}
		if name == "inputSchema" {
			def.InputSchema = obj
		} else {
			def.OutputSchema = obj
		}
		for _, msg := range lintSchema(obj, name) {
			problem(SeverityWarning, name, "%s", msg)
		}
	}
	if HasErrors(diags) {
		// Build will not run: report the schemas' own problems here.
		if def.InputSchema != nil {
			if _, err := CompileSchema(def.InputSchema); err != nil {
				problem(SeverityError, "inputSchema", "inputSchema: %v", err)
			}
		}
		if def.OutputSchema != nil {
			if _, err := compileAnySchema(def.OutputSchema); err != nil {
				problem(SeverityError, "outputSchema", "outputSchema: %v", err)
			}
		}
		return ToolDef{}, diags
	}

	lt.defineFunctions(&def, get)
	return def, diags
}

func kindMatches(k memberKind, v lua.LValue) bool {
	switch k {
	case kindString:
		return v.Type() == lua.LTString
	case kindBool:
		return v.Type() == lua.LTBool
	case kindNumber:
		return v.Type() == lua.LTNumber
	case kindStrings:
		t, ok := v.(*lua.LTable)
		if !ok {
			return false
		}
		n := 0
		good := true
		t.ForEach(func(k, e lua.LValue) {
			n++
			if e.Type() != lua.LTString {
				good = false
			}
		})
		return good && n == t.Len()
	case kindTable:
		return v.Type() == lua.LTTable
	case kindFunc:
		return v.Type() == lua.LTFunction
	case kindStringOrFunc:
		return v.Type() == lua.LTString || v.Type() == lua.LTFunction
	case kindBoolOrFunc:
		return v.Type() == lua.LTBool || v.Type() == lua.LTFunction
	case kindBehaviorOrFunc:
		s, ok := v.(lua.LString)
		return v.Type() == lua.LTFunction || (ok && (s == "cancel" || s == "block"))
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

// with runs fn on a pooled state under ctx, with the call's log going to cc.Log;
// member is the member fn calls, as tracebacks name it.
func (lt *luaTool) with(ctx context.Context, cc *CallContext, member string, fn func(vm *bindings.VM, c *bindings.Call) error) error {
	if lt.gate != nil {
		leave, err := lt.gate.Enter(ctx, lt.file)
		if err != nil {
			return fmt.Errorf("waiting for a free slot to run: %w", err)
		}
		defer leave()
	}
	vm, err := lt.pool.Get()
	if err != nil {
		return err
	}
	defer lt.pool.Put(vm)
	c := &bindings.Call{Context: ctx, ReadOnly: cc == nil || !cc.writable, Entry: member}
	if cc != nil {
		c.Log = cc.Log
		c.Hidden = cc.hidden
	}
	return fn(vm, c)
}

// member returns the value of a member in the state's copy of the tool table.
func member(vm *bindings.VM, name string) lua.LValue {
	return vm.Main.(*lua.LTable).RawGetString(name)
}

// invoke calls member name with args built on the state and hands the results to use.
func (lt *luaTool) invoke(ctx context.Context, cc *CallContext, name string, args func(vm *bindings.VM) ([]lua.LValue, error), use func(vm *bindings.VM, out []lua.LValue) error) error {
	return lt.invokeWithCall(ctx, cc, name, args, func(vm *bindings.VM, _ *bindings.Call, out []lua.LValue) error {
		return use(vm, out)
	})
}

// invokeWithCall is invoke for a use that calls back into Lua on the same state and
// needs the call it runs under.
func (lt *luaTool) invokeWithCall(ctx context.Context, cc *CallContext, name string, args func(vm *bindings.VM) ([]lua.LValue, error), use func(vm *bindings.VM, c *bindings.Call, out []lua.LValue) error) error {
	return lt.with(ctx, cc, name, func(vm *bindings.VM, c *bindings.Call) error {
		var argv []lua.LValue
		if args != nil {
			var err error
			if argv, err = args(vm); err != nil {
				return err
			}
		}
		out, err := vm.Call(c, member(vm, name), argv...)
		if err != nil {
			return err
		}
		err = use(vm, c, out)
		var expected *CallError
		if err != nil && !errors.As(err, &expected) {
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

// inputArgs converts the input, and the ctx object when cc is given.
func inputArgs(input map[string]any, cc *CallContext) func(vm *bindings.VM) ([]lua.LValue, error) {
	return func(vm *bindings.VM) ([]lua.LValue, error) {
		in, err := vm.ToLua(input)
		if err != nil {
			return nil, err
		}
		if cc == nil {
			return []lua.LValue{in}, nil
		}
		return []lua.LValue{in, luaContextFor(vm, cc)}, nil
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
