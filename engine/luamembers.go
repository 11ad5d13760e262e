package engine

import (
	"context"
	"fmt"
	"sort"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// defineFunctions fills def's function members from the tool table. A member that is
// a plain value becomes a function returning it; a member of the wrong kind (already
// reported as a warning) becomes a function that fails, so the defaults table's
// fail-closed answer applies.
func (lt *luaTool) defineFunctions(def *ToolDef, get func(string) lua.LValue) {
	def.Prompt = lt.promptMember(get("prompt"))
	def.Description = lt.stringMember(get, "description", true)
	def.UserFacingName = lt.stringMember(get, "userFacingName", false)
	def.IsEnabled = lt.enabledMember(get("isEnabled"))
	// Plain-value isReadOnly, isConcurrencySafe, isDestructive and isOpenWorld are
	// def.Hints (see LoadLua), which answer for them: only functions become functions.
	def.IsReadOnly = lt.funcOnly(get, "isReadOnly")
	def.IsConcurrencySafe = lt.funcOnly(get, "isConcurrencySafe")
	def.IsDestructive = lt.funcOnly(get, "isDestructive")
	def.IsOpenWorld = lt.funcOnly(get, "isOpenWorld")
	def.InterruptBehavior = lt.behaviorMember(get("interruptBehavior"))
	if get("validateInput") != lua.LNil {
		def.ValidateInput = lt.validateInput
	}
	if get("checkPermissions") != lua.LNil {
		def.CheckPermissions = lt.checkPermissions
	}
	def.GetPath = lt.inputStringMember(get, "getPath")
	if get("ruleContent") != lua.LNil {
		def.RuleContent = lt.ruleContent
	}
	def.ToAutoClassifierInput = lt.inputStringMember(get, "toAutoClassifierInput")
	def.Call = lt.call
	if get("mapResult") != lua.LNil {
		def.MapResult = lt.mapResult
	}
	def.RenderToolUseMessage = lt.inputStringMember(get, "renderToolUseMessage")
	def.RenderToolUseRejectedMessage = lt.inputStringMember(get, "renderToolUseRejectedMessage")
	if get("renderToolResultMessage") != lua.LNil {
		def.RenderToolResultMessage = func(ctx context.Context, data any) (string, error) {
			return lt.valueString(ctx, "renderToolResultMessage", data)
		}
	}
	if get("renderToolUseProgressMessage") != lua.LNil {
		def.RenderToolUseProgressMessage = func(ctx context.Context, progress any) (string, error) {
			return lt.valueString(ctx, "renderToolUseProgressMessage", progress)
		}
	}
	if get("renderToolUseErrorMessage") != lua.LNil {
		def.RenderToolUseErrorMessage = func(ctx context.Context, msg string) (string, error) {
			return lt.valueString(ctx, "renderToolUseErrorMessage", msg)
		}
	}
}

func (lt *luaTool) promptMember(v lua.LValue) func(context.Context, PromptOptions) (string, error) {
	if s, ok := v.(lua.LString); ok {
		return func(context.Context, PromptOptions) (string, error) { return string(s), nil }
	}
	return func(ctx context.Context, opts PromptOptions) (string, error) {
		var result string
		err := lt.invoke(ctx, nil, "prompt", func(vm *bindings.VM) ([]lua.LValue, error) {
			o, err := vm.ToLua(map[string]any{"tools": stringsToAny(opts.Tools)})
			return []lua.LValue{o}, err
		}, func(_ *bindings.VM, out []lua.LValue) error {
			s, ok := first(out).(lua.LString)
			if !ok {
				return lt.returnError("prompt", "a string", first(out))
			}
			result = string(s)
			return nil
		})
		return result, err
	}
}

// stringMember handles description and userFacingName: a string, or a function of
// the input (and, for description, of an options table).
func (lt *luaTool) stringMember(get func(string) lua.LValue, name string, withOpts bool) func(context.Context, map[string]any) (string, error) {
	switch v := get(name).(type) {
	case *lua.LNilType:
		return nil
	case lua.LString:
		return func(context.Context, map[string]any) (string, error) { return string(v), nil }
	case *lua.LFunction:
		return func(ctx context.Context, input map[string]any) (string, error) {
			args := inputArgs(input, nil)
			if withOpts {
				args = func(vm *bindings.VM) ([]lua.LValue, error) {
					in, err := vm.ToLua(input)
					return []lua.LValue{in, vm.L.NewTable()}, err
				}
			}
			return lt.stringResult(ctx, name, args)
		}
	default:
		return wrongKind[string](name, v)
	}
}

func (lt *luaTool) inputStringMember(get func(string) lua.LValue, name string) func(context.Context, map[string]any) (string, error) {
	if get(name) == lua.LNil {
		return nil
	}
	return func(ctx context.Context, input map[string]any) (string, error) {
		return lt.stringResult(ctx, name, inputArgs(input, nil))
	}
}

func (lt *luaTool) valueString(ctx context.Context, name string, v any) (string, error) {
	return lt.stringResult(ctx, name, func(vm *bindings.VM) ([]lua.LValue, error) {
		lv, err := vm.ToLua(v)
		return []lua.LValue{lv}, err
	})
}

func (lt *luaTool) stringResult(ctx context.Context, name string, args func(*bindings.VM) ([]lua.LValue, error)) (string, error) {
	var result string
	err := lt.invoke(ctx, nil, name, args, func(_ *bindings.VM, out []lua.LValue) error {
		s, ok := first(out).(lua.LString)
		if !ok {
			return lt.returnError(name, "a string", first(out))
		}
		result = string(s)
		return nil
	})
	return result, err
}

func (lt *luaTool) boolMember(get func(string) lua.LValue, name string) func(context.Context, map[string]any) (bool, error) {
	switch v := get(name).(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		return func(context.Context, map[string]any) (bool, error) { return bool(v), nil }
	case *lua.LFunction:
		return func(ctx context.Context, input map[string]any) (bool, error) {
			var result bool
			err := lt.invoke(ctx, nil, name, inputArgs(input, nil), func(_ *bindings.VM, out []lua.LValue) error {
				b, ok := first(out).(lua.LBool)
				if !ok {
					return lt.returnError(name, "a boolean", first(out))
				}
				result = bool(b)
				return nil
			})
			return result, err
		}
	default:
		return wrongKind[bool](name, v)
	}
}

// funcOnly is boolMember for a member whose plain value is a hint: nil for a plain
// boolean, which Hints holds.
func (lt *luaTool) funcOnly(get func(string) lua.LValue, name string) func(context.Context, map[string]any) (bool, error) {
	if _, ok := get(name).(lua.LBool); ok {
		return nil
	}
	return lt.boolMember(get, name)
}

func (lt *luaTool) enabledMember(v lua.LValue) func(context.Context) (bool, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		return func(context.Context) (bool, error) { return bool(x), nil }
	case *lua.LFunction:
		return func(ctx context.Context) (bool, error) {
			var result bool
			err := lt.invoke(ctx, nil, "isEnabled", nil, func(_ *bindings.VM, out []lua.LValue) error {
				b, ok := first(out).(lua.LBool)
				if !ok {
					return lt.returnError("isEnabled", "a boolean", first(out))
				}
				result = bool(b)
				return nil
			})
			return result, err
		}
	default:
		return func(context.Context) (bool, error) {
			return false, fmt.Errorf("isEnabled is %s, not a boolean or a function (%w)", typeName(v), ErrReportedAtLoad)
		}
	}
}

func (lt *luaTool) behaviorMember(v lua.LValue) func(context.Context) (string, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LString:
		return func(context.Context) (string, error) { return string(x), nil }
	case *lua.LFunction:
		return func(ctx context.Context) (string, error) {
			var result string
			err := lt.invoke(ctx, nil, "interruptBehavior", nil, func(_ *bindings.VM, out []lua.LValue) error {
				s, ok := first(out).(lua.LString)
				if !ok {
					return lt.returnError("interruptBehavior", `"cancel" or "block"`, first(out))
				}
				result = string(s)
				return nil
			})
			return result, err
		}
	default:
		return func(context.Context) (string, error) {
			return "", fmt.Errorf("interruptBehavior is %s (%w)", typeName(v), ErrReportedAtLoad)
		}
	}
}

// wrongKind is the function standing for a member of the wrong kind: it always fails.
func wrongKind[T any](name string, v lua.LValue) func(context.Context, map[string]any) (T, error) {
	return func(context.Context, map[string]any) (T, error) {
		var zero T
		return zero, fmt.Errorf("%s is %s, which it may not be (%w)", name, typeName(v), ErrReportedAtLoad)
	}
}

// validateInput accepts true, {result = true}, {result = false, message = ..., errorCode = ...}
// and false, "message". Anything else is invalid: the safe reading.
func (lt *luaTool) validateInput(ctx context.Context, input map[string]any, cc *CallContext) (ValidationResult, error) {
	var r ValidationResult
	err := lt.invoke(ctx, cc, "validateInput", inputArgs(input, cc), func(_ *bindings.VM, out []lua.LValue) error {
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

// checkPermissions accepts {behavior = ..., updatedInput = ..., message = ...}.
func (lt *luaTool) checkPermissions(ctx context.Context, input map[string]any, cc *CallContext) (PermissionResult, error) {
	var r PermissionResult
	err := lt.invoke(ctx, cc, "checkPermissions", inputArgs(input, cc), func(vm *bindings.VM, out []lua.LValue) error {
		t, ok := first(out).(*lua.LTable)
		if !ok {
			return lt.returnError("checkPermissions", `a table {behavior = "allow"|"deny"|"ask"|"passthrough"}`, first(out))
		}
		r.Behavior = PermissionBehavior(lua.LVAsString(t.RawGetString("behavior")))
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
		return nil
	})
	return r, err
}

var resultKeys = map[string]bool{"data": true, "newMessages": true, "mcpMeta": true, "contextModifier": true}

// contextChangeKeys are the fields of a Lua contextModifier table.
var contextChangeKeys = map[string]bool{"cwd": true, "mode": true, "allow": true, "ask": true, "deny": true, "state": true}

// ToolResultFields returns the fields a Lua call may return in a ToolResult table,
// sorted (for type definitions and their checks).
func ToolResultFields() []string { return sortedSet(resultKeys) }

// ContextChangeFields returns the fields of a Lua contextModifier table, sorted.
func ContextChangeFields() []string { return sortedSet(contextChangeKeys) }

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A CallError is the failure a Lua call reported by returning nil (or false) and a
// message, the Lua convention for expected failures. Its text is the message alone.
type CallError struct{ Message string }

func (e *CallError) Error() string { return e.Message }

// call runs the tool. It accepts a ToolResult table, or a string, number, boolean or
// nil as shorthand for {data = value}; nil or false followed by a string is a failure
// with that message.
func (lt *luaTool) call(ctx context.Context, input map[string]any, cc *CallContext) (*ToolResult, error) {
	var r ToolResult
	err := lt.invokeWithCall(ctx, cc, "call", inputArgs(input, cc), func(vm *bindings.VM, c *bindings.Call, out []lua.LValue) error {
		if len(out) > 1 && !lua.LVAsBool(out[0]) {
			if msg, ok := out[1].(lua.LString); ok {
				return &CallError{Message: string(msg)}
			}
		}
		switch v := first(out).(type) {
		case lua.LString, lua.LNumber, lua.LBool, *lua.LNilType:
			d, err := vm.FromLua(v)
			if err != nil {
				return fmt.Errorf("call result data: %w", err)
			}
			r.Data = d
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
			d, err := vm.FromLua(v.RawGetString("data"))
			if err != nil {
				return fmt.Errorf("call result data: %w", err)
			}
			r.Data = d
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
	return &r, nil
}

// mapResult accepts a string, or a list of content blocks
// ({type = "text", text = ...} or {type = "image", source = {...}}).
func (lt *luaTool) mapResult(ctx context.Context, data any, toolUseID string) (Content, error) {
	var c Content
	err := lt.invoke(ctx, nil, "mapResult", func(vm *bindings.VM) ([]lua.LValue, error) {
		d, err := vm.ToLua(data)
		return []lua.LValue{d, lua.LString(toolUseID)}, err
	}, func(vm *bindings.VM, out []lua.LValue) error {
		switch v := first(out).(type) {
		case lua.LString:
			c = Text(string(v))
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

// contentBlocks checks a JSON value as a list of content blocks.
func contentBlocks(v any) (Content, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("mapResult must return a string or a list of content blocks")
	}
	out := make(Content, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("mapResult: block %d is not a table", i+1)
		}
		switch m["type"] {
		case "text":
			text, ok := m["text"].(string)
			if !ok {
				return nil, fmt.Errorf("mapResult: text block %d needs a string text", i+1)
			}
			out = append(out, ContentBlock{Type: "text", Text: text})
		case "image":
			src, ok := m["source"].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("mapResult: image block %d needs a source table", i+1)
			}
			out = append(out, ContentBlock{Type: "image", Source: src})
		default:
			return nil, fmt.Errorf("mapResult: block %d has type %v; text and image are supported", i+1, m["type"])
		}
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
func contextChange(vm *bindings.VM, c *bindings.Call, v lua.LValue) (*ContextChange, error) {
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
	var ch ContextChange
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
			m, err := ParseMode(s)
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

// ruleContent accepts a string, or a list of strings (the parts of a compound command).
func (lt *luaTool) ruleContent(ctx context.Context, input map[string]any) ([]string, error) {
	var parts []string
	err := lt.invoke(ctx, nil, "ruleContent", inputArgs(input, nil), func(vm *bindings.VM, out []lua.LValue) error {
		switch v := first(out).(type) {
		case lua.LString:
			parts = []string{string(v)}
			return nil
		case *lua.LTable:
			plain, err := vm.FromLua(v)
			list, ok := plain.([]any)
			if err != nil || !ok {
				return lt.returnError("ruleContent", "a string or a list of strings", v)
			}
			for _, p := range list {
				s, ok := p.(string)
				if !ok {
					return lt.returnError("ruleContent", "a string or a list of strings", v)
				}
				parts = append(parts, s)
			}
			return nil
		default:
			return lt.returnError("ruleContent", "a string or a list of strings", v)
		}
	})
	return parts, err
}
