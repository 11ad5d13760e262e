package luaload

import (
	"context"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/rules"
)

// coerceInput accepts nil (the input stands as given) or a table with string keys,
// the input to validate instead, and after the table a string, the note its result
// ends with (nil or "" for none).
func (lt *luaTool) coerceInput(ctx context.Context, input map[string]any) (map[string]any, string, error) {
	var mended map[string]any
	var note string
	err := lt.invoke(ctx, nil, "coerceInput", inputArgs(input, nil), func(vm *bindings.VM, out []lua.LValue) error {
		v := first(out)
		if v == lua.LNil {
			return nil
		}
		plain, err := vm.FromLua(v)
		obj, ok := plain.(map[string]any)
		if err != nil || !ok {
			return lt.returnError("coerceInput", "nil or a table with string keys", v)
		}
		if len(out) > 1 && out[1] != lua.LNil {
			s, ok := out[1].(lua.LString)
			if !ok {
				return lt.returnError("coerceInput", "a string or nil after the table (the note)", out[1])
			}
			note = string(s)
		}
		mended = obj
		return nil
	})
	return mended, note, err
}

// validateInputOn accepts true, {result = true}, {result = false, message = ...,
// errorCode = ...} and false, "message". Anything else is invalid: the safe reading.
// It runs on x's state when x, the call's crossing, is set.
func (lt *luaTool) validateInputOn(ctx context.Context, input map[string]any, cc *engine.CallContext, x *crossing) (engine.ValidationResult, error) {
	var r engine.ValidationResult
	err := lt.invokeOn(ctx, cc, "validateInput", x, x.inputArgs(input, cc), func(_ *bindings.VM, out []lua.LValue) error {
		switch v := first(out).(type) {
		case lua.LBool:
			r.Valid = bool(v)
			if !r.Valid && len(out) > 1 {
				r.Message = lua.LVAsString(out[1])
			}
			return nil
		case *lua.LTable:
			res, ok := v.RawGetString("result").(lua.LBool)
			if !ok {
				return lt.returnError("validateInput", "true or {result = false, message = ...}", v)
			}
			r.Valid = bool(res)
			r.Message = lua.LVAsString(v.RawGetString("message"))
			r.ErrorCode = int(lua.LVAsNumber(v.RawGetString("errorCode")))
			return nil
		default:
			return lt.returnError("validateInput", "true or {result = false, message = ...}", v)
		}
	})
	return r, err
}

// checkPermissionsOn accepts {behavior = ..., updatedInput = ..., message = ...,
// decisionReason = ...}; see safetyCheckOf for decisionReason. It runs on x's state
// when x, the call's crossing, is set.
func (lt *luaTool) checkPermissionsOn(ctx context.Context, input map[string]any, cc *engine.CallContext, x *crossing) (engine.PermissionResult, error) {
	var r engine.PermissionResult
	err := lt.invokeOn(ctx, cc, "checkPermissions", x, x.inputArgs(input, cc), func(vm *bindings.VM, out []lua.LValue) error {
		t, ok := first(out).(*lua.LTable)
		if !ok {
			return lt.returnError("checkPermissions", `a table {behavior = "allow"|"deny"|"ask"|"passthrough"}`, first(out))
		}
		r.Behavior = rules.Behavior(lua.LVAsString(t.RawGetString("behavior")))
		r.Message = lua.LVAsString(t.RawGetString("message"))
		if u := t.RawGetString("updatedInput"); u != lua.LNil {
			plain, err := vm.FromLua(u)
			if err != nil {
				return fmt.Errorf("checkPermissions: updatedInput: %w", err)
			}
			obj, ok := plain.(map[string]any)
			if !ok {
				return fmt.Errorf("checkPermissions: updatedInput must be a table with string keys")
			}
			r.UpdatedInput = obj
		}
		if dr := t.RawGetString("decisionReason"); dr != lua.LNil {
			why, err := safetyCheckOf(r.Behavior, dr)
			if err != nil {
				return fmt.Errorf("checkPermissions: %w", err)
			}
			r.SafetyCheck = why
		}
		return nil
	})
	return r, err
}

// safetyCheckOf reads a checkPermissions result's decisionReason, the original's
// name and shape for why a tool decided: luatool takes the one that changes what
// happens, {type = "safetyCheck", reason = "..."} with behavior "ask", the ask of a
// call that would write something protected (engine.PermissionResult.SafetyCheck).
// Its classifierApprovable field is ignored (luatool has no classifier). Any other
// shape is an error, which denies the call: a misspelt safety check must not fail
// open.
func safetyCheckOf(behavior rules.Behavior, dr lua.LValue) (string, error) {
	const want = `decisionReason must be {type = "safetyCheck", reason = "why"} with behavior = "ask"`
	t, ok := dr.(*lua.LTable)
	if !ok {
		return "", fmt.Errorf("%s, not a %s", want, dr.Type())
	}
	var bad error
	t.ForEach(func(k, v lua.LValue) {
		switch k.String() {
		case "type", "reason", "classifierApprovable":
		default:
			if bad == nil {
				bad = fmt.Errorf("%s: unknown field %q", want, k.String())
			}
		}
	})
	if bad != nil {
		return "", bad
	}
	if typ := t.RawGetString("type"); typ != lua.LString("safetyCheck") {
		return "", fmt.Errorf("%s: type is %s", want, lua.LVAsString(typ))
	}
	reason, ok := t.RawGetString("reason").(lua.LString)
	if !ok || strings.TrimSpace(string(reason)) == "" {
		return "", fmt.Errorf("%s: reason is missing", want)
	}
	if behavior != rules.Ask {
		return "", fmt.Errorf("%s: behavior is %q", want, behavior)
	}
	return string(reason), nil
}

// resultKeys are the fields of a ToolResult table, and contextChangeKeys those of a
// contextModifier: the contract's (engine.ResultFields).
var (
	resultKeys, contextChangeKeys = fieldSets(engine.ResultFields())
)

// fieldSets are the sets of the fields of a result and of its contextModifier.
func fieldSets(result, contextChange []string) (map[string]bool, map[string]bool) {
	return setOf(result), setOf(contextChange)
}

func setOf(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// A CallError is the failure a Lua call reported by returning nil (or false) and a
// message, the Lua convention for expected failures. Its text is the message alone.
type CallError struct{ Message string }

func (e *CallError) Error() string { return e.Message }

// callOn runs the tool. It accepts a ToolResult table, or a string, number, boolean
// or nil as shorthand for {data = value}; nil or false followed by a string is a
// failure with that message. It runs on x's state when x, the call's crossing, is
// set, which keeps the data as Lua for mapResult.
func (lt *luaTool) callOn(ctx context.Context, input map[string]any, cc *engine.CallContext, x *crossing) (*engine.ToolResult, error) {
	f := x.callResult()
	r := &f.r
	err := lt.invokeWithCall(ctx, cc, "call", &f.c, x, x.inputArgs(input, cc), func(vm *bindings.VM, c *bindings.Call, out []lua.LValue) error {
		if err := failure(out); err != nil {
			return err
		}
		switch v := first(out).(type) {
		case lua.LString, lua.LNumber, lua.LBool, *lua.LNilType:
			d, err := vm.FromLua(v)
			if err != nil {
				return fmt.Errorf("call result data: %w", err)
			}
			r.Data = d
			x.keepData(v)
			return nil
		case *lua.LTable:
			var bad string
			v.ForEach(func(k, _ lua.LValue) {
				if s, ok := k.(lua.LString); (!ok || !resultKeys[string(s)]) && bad == "" {
					bad = k.String()
				}
			})
			if bad != "" {
				return fmt.Errorf("call returned a table with key %q; return {data = ...} (a ToolResult) or a string, number or boolean", bad)
			}
			lv := v.RawGetString("data")
			d, err := vm.FromLua(lv)
			if err != nil {
				return fmt.Errorf("call result data: %w", err)
			}
			r.Data = d
			x.keepData(lv)
			if nm := v.RawGetString("newMessages"); nm != lua.LNil {
				plain, err := vm.FromLua(nm)
				list, ok := plain.([]any)
				if err != nil || !ok {
					return fmt.Errorf("call result newMessages must be a list of JSON values")
				}
				r.NewMessages = list
			}
			if cm := v.RawGetString("contextModifier"); cm != lua.LNil {
				ch, err := contextChange(vm, c, cm)
				if err != nil {
					return err
				}
				r.ContextModifier = ch
			}
			if mm := v.RawGetString("mcpMeta"); mm != lua.LNil {
				plain, err := vm.FromLua(mm)
				obj, ok := plain.(map[string]any)
				if err != nil || !ok {
					return fmt.Errorf("call result mcpMeta must be a table with string keys")
				}
				r.MCPMeta = obj
			}
			return nil
		default:
			return lt.returnError("call", "a ToolResult table or a string, number or boolean", v)
		}
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// mapResultOn accepts a string, or a list of content blocks (text, image, audio,
// resource, resource_link: see contentBlockOf). It runs on x's
// state when x, the call's crossing, is set, which may hold data as Lua already.
func (lt *luaTool) mapResultOn(ctx context.Context, data any, toolUseID string, x *crossing) (engine.Content, error) {
	var c engine.Content
	err := lt.invokeOn(ctx, nil, "mapResult", x, func(vm *bindings.VM) (memberArgs, error) {
		d, err := x.dataArg(vm, data)
		return argsOf(d, lua.LString(toolUseID)), err
	}, func(vm *bindings.VM, out []lua.LValue) error {
		switch v := first(out).(type) {
		case lua.LString:
			c = engine.Text(string(v))
			return nil
		case *lua.LTable:
			plain, err := vm.FromLua(v)
			if err != nil {
				return fmt.Errorf("mapResult: %w", err)
			}
			c, err = contentBlocks(plain)
			return err
		default:
			return lt.returnError("mapResult", "a string or a list of content blocks", v)
		}
	})
	return c, err
}

// contentBlocks checks a JSON value as a list of content blocks (see contentBlockOf).
func contentBlocks(v any) (engine.Content, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("mapResult must return a string or a list of content blocks")
	}
	out := make(engine.Content, 0, len(list))
	for i, e := range list {
		b, err := contentBlockOf(e)
		if err != nil {
			return nil, fmt.Errorf("mapResult: %w", blockError(i+1, b, err))
		}
		out = append(out, b)
	}
	return out, nil
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// contextChange reads a call result's contextModifier: a table of changes, or a
// function of ctx returning one, called at once (the state that ran the call is still
// at hand): {cwd = "...", mode = "...", allow = {...}, ask = {...}, deny = {...},
// state = {key = value}}.
func contextChange(vm *bindings.VM, c *bindings.Call, v lua.LValue) (*engine.ContextChange, error) {
	if fn, ok := v.(*lua.LFunction); ok {
		out, err := vm.Call(c, fn)
		if err != nil {
			return nil, fmt.Errorf("contextModifier: %w", err)
		}
		v = first(out)
	}
	plain, err := vm.FromLua(v)
	m, ok := plain.(map[string]any)
	if err != nil || !ok {
		return nil, fmt.Errorf("contextModifier must be a table of changes {cwd=, mode=, allow=, ask=, deny=, state=} or a function returning one")
	}
	var ch engine.ContextChange
	for k, val := range m {
		if !contextChangeKeys[k] {
			return nil, fmt.Errorf("contextModifier has an unknown field %q", k)
		}
		switch k {
		case "cwd":
			s, ok := val.(string)
			if !ok {
				return nil, fmt.Errorf("contextModifier.cwd must be a string")
			}
			ch.Cwd = s
		case "mode":
			s, _ := val.(string)
			m, err := rules.ParseMode(s)
			if err != nil {
				return nil, fmt.Errorf("contextModifier.mode: %w", err)
			}
			ch.Mode = m
		case "allow", "ask", "deny":
			list, ok := val.([]any)
			var rules []string
			for _, r := range list {
				s, isString := r.(string)
				if !isString {
					ok = false
					break
				}
				rules = append(rules, s)
			}
			if !ok {
				return nil, fmt.Errorf("contextModifier.%s must be a list of rule strings", k)
			}
			switch k {
			case "allow":
				ch.Allow = rules
			case "ask":
				ch.Ask = rules
			default:
				ch.Deny = rules
			}
		case "state":
			obj, ok := val.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("contextModifier.state must be a table with string keys")
			}
			ch.State = obj
		}
	}
	return &ch, nil
}
