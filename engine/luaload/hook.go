package luaload

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/srcpos"
	"github.com/luatool/luatool/internal/jsonvalue"
	"github.com/luatool/luatool/internal/spell"
)

// A hook file returns a table with an event instead of a tool:
//
//	return {
//	  event = "PreToolUse",        -- or PostToolUse, PostToolUseFailure
//	  matcher = "Bash",            -- Claude Code's matcher syntax; absent: every tool
//	  timeout = 5,                 -- seconds; absent: hooks.DefaultTimeout (and
//	                               -- never past the call's deadline)
//	  run = function(input, ctx)   -- input: the hook input JSON, as a table
//	    if input.tool_input.command:find("rm %-rf") then
//	      return { permissionDecision = "deny", permissionDecisionReason = "not here" }
//	    end
//	  end,
//	}
//
// run returns the output of Claude Code's hook protocol as a table (see
// hooks.DecodeOutput), whose hookSpecificOutput members may also be given at
// the top level; nil is no decision, and nil, "message" (or an error) a failure,
// logged, after which the call goes on as without the hook. run reads, as members
// other than call do: the host modules refuse to change anything. ctx holds event
// and tool_name.

// hookMembers are the members of a hook file.
var hookMembers = []string{"event", "matcher", "timeout", "run"}

// isHookFile reports whether the table a file returned is a hook's: it has an event.
func isHookFile(main lua.LValue) bool {
	tbl, ok := main.(*lua.LTable)
	return ok && tbl.RawGetString("event") != lua.LNil
}

// defineHook checks a hook file's table and builds its definition.
func (lt *luaTool) defineHook(vm *bindings.VM) (engine.ToolDef, []diag.Diagnostic) {
	var diags []diag.Diagnostic
	problem := func(member, format string, args ...any) {
		diags = append(diags, diag.Diagnostic{Pos: srcpos.Pos{File: lt.file, Line: lt.memberLine(member)},
			Severity: diag.SeverityError, Member: member, Message: fmt.Sprintf(format, args...)})
	}
	tbl := vm.Main.(*lua.LTable)
	var keys []string
	tbl.ForEach(func(k, _ lua.LValue) {
		s, ok := k.(lua.LString)
		if !ok {
			problem("", "the hook table has a key of type %s; members are named by strings", k.Type())
			return
		}
		keys = append(keys, string(s))
	})
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(hookMembers, k) && k[0] != '_' {
			problem(k, "unknown member %q of a hook file%s; the members are event, matcher, timeout and run", k, hint(k))
		}
	}
	h := &hooks.Def{}
	def := engine.ToolDef{Source: lt.file, MemberLine: lt.memberLine, Hook: h}
	get := tbl.RawGetString
	if s, ok := get("event").(lua.LString); ok {
		h.Event = hooks.Event(s)
	} else {
		problem("event", "event must be a string, got %s", typeName(get("event")))
	}
	switch v := get("matcher").(type) {
	case lua.LString:
		h.Matcher = string(v)
	case *lua.LNilType:
	default:
		problem("matcher", "matcher must be a string, got %s", typeName(v))
	}
	switch v := get("timeout").(type) {
	case lua.LNumber:
		if v <= 0 || math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) {
			problem("timeout", "timeout must be a positive number of seconds, got %v", v)
		} else {
			h.Timeout = time.Duration(float64(v) * float64(time.Second))
		}
	case *lua.LNilType:
	default:
		problem("timeout", "timeout must be a number of seconds, got %s", typeName(v))
	}
	if fn, ok := get("run").(*lua.LFunction); ok && fn != nil {
		h.Run = lt.runHook
	} else if get("run") != lua.LNil {
		problem("run", "run must be a function, got %s", typeName(get("run")))
	}
	return def, diags
}

// hint is " (did you mean X?)" for a misspelt hook member.
func hint(k string) string {
	if s := spell.Suggest(k, hookMembers); s != "" {
		return fmt.Sprintf(" (did you mean %s?)", s)
	}
	return ""
}

// runHook calls run with the hook input and reads its answer.
func (lt *luaTool) runHook(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return hooks.Decision{}, err
	}
	input, err := jsonvalue.Decode(raw)
	if err != nil {
		return hooks.Decision{}, err
	}
	var d hooks.Decision
	err = lt.invoke(ctx, nil, "run", func(vm *bindings.VM) (memberArgs, error) {
		v, err := vm.ToLua(input)
		if err != nil {
			return memberArgs{}, err
		}
		hc, err := vm.ToLua(map[string]any{"event": string(in.HookEventName), "tool_name": in.ToolName})
		return argsOf(v, hc), err
	}, func(vm *bindings.VM, out []lua.LValue) error {
		if len(out) > 1 && !lua.LVAsBool(out[0]) {
			if msg, ok := out[1].(lua.LString); ok {
				return &CallError{Message: string(msg)}
			}
		}
		switch v := first(out).(type) {
		case *lua.LNilType:
			return nil
		case *lua.LTable:
			plain, err := vm.FromLua(v)
			if err != nil {
				return fmt.Errorf("run returned a table that is not a JSON value: %w", err)
			}
			m, ok := plain.(map[string]any)
			if !ok {
				return lt.returnError("run", "a table of the hook output (permissionDecision = ..., ...) or nil", v)
			}
			d, err = hooks.DecodeOutput(in.HookEventName, m, true)
			return err
		default:
			return lt.returnError("run", "a table of the hook output (permissionDecision = ..., ...) or nil", v)
		}
	})
	return d, err
}
