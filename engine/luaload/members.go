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

// defineFunctions fills def's function members from the tool table. A member that is
// a plain value becomes a function returning it, but for the flags whose plain value
// def.Hints holds (isReadOnly, isConcurrencySafe, isDestructive, isOpenWorld): the
// engine answers those without a Lua call. A member of the wrong kind (already
// reported) becomes a function that fails, so the defaults table's fail-closed answer
// applies. An absent member stays nil, for the engine's default.
func (lt *luaTool) defineFunctions(def *engine.ToolDef, get func(string) lua.LValue) {
	str := func(name string) answer[string] { return newAnswer(lt, name, get(name), asString, "a string") }
	flag := func(name string) answer[bool] {
		if _, plain := get(name).(lua.LBool); plain {
			return nil
		}
		return newAnswer(lt, name, get(name), asBool, "a boolean")
	}
	if prompt := str("prompt"); prompt != nil {
		def.Prompt = func(ctx context.Context, opts engine.PromptOptions) (string, error) {
			return prompt(ctx, func(vm *bindings.VM) (memberArgs, error) {
				o, err := vm.ToLua(map[string]any{"tools": stringsToAny(opts.Tools)})
				return argsOf(o), err
			})
		}
	}
	if description := str("description"); description != nil {
		def.Description = func(ctx context.Context, input map[string]any) (string, error) {
			return description(ctx, func(vm *bindings.VM) (memberArgs, error) {
				in, err := vm.ToLua(input)
				return argsOf(in, vm.L.NewTable()), err
			})
		}
	}
	def.UserFacingName = str("userFacingName").ofInput()
	def.IsEnabled = newAnswer(lt, "isEnabled", get("isEnabled"), asBool, "a boolean").ofNothing()
	def.IsReadOnly = flag("isReadOnly").ofQuestion()
	def.IsConcurrencySafe = flag("isConcurrencySafe").ofQuestion()
	def.IsDestructive = flag("isDestructive").ofInput()
	def.IsOpenWorld = flag("isOpenWorld").ofInput()
	def.InterruptBehavior = newAnswer(lt, "interruptBehavior", get("interruptBehavior"), asString, `"cancel" or "block"`).ofNothing()
	def.GetPath = str("getPath").ofInput()
	def.ToAutoClassifierInput = str("toAutoClassifierInput").ofInput()
	def.RenderToolUseMessage = str("renderToolUseMessage").ofInput()
	def.RenderToolUseRejectedMessage = str("renderToolUseRejectedMessage").ofInput()
	def.RenderToolResultMessage = str("renderToolResultMessage").ofValue()
	def.RenderToolUseProgressMessage = str("renderToolUseProgressMessage").ofValue()
	if render := str("renderToolUseErrorMessage").ofValue(); render != nil {
		def.RenderToolUseErrorMessage = func(ctx context.Context, msg string) (string, error) { return render(ctx, msg) }
	}
	if get("validateInput") != lua.LNil {
		def.ValidateInput = lt.validateInput
	}
	if get("checkPermissions") != lua.LNil {
		def.CheckPermissions = lt.checkPermissions
	}
	if get("ruleContent") != lua.LNil {
		def.RuleContent = lt.ruleContent
	}
	if get("call") != lua.LNil {
		def.Call = lt.call
	}
	if get("mapResult") != lua.LNil {
		def.MapResult = lt.mapResult
	}
}

// An answer is the Go side of a member that answers a question: a plain value, or a
// function called with the arguments args builds. It is nil for an absent member.
type answer[T any] func(ctx context.Context, args func(*bindings.VM) (memberArgs, error)) (T, error)

// newAnswer builds the answer of member name, whose value in the tool table is v: a
// function is called on a pooled state and its first result read with conv (want
// says what it must be); a plain value is read with conv once, here; anything else
// is of a kind the member may not have, already reported when the tool loaded, and
// the answer fails so that the safe answer applies.
func newAnswer[T any](lt *luaTool, name string, v lua.LValue, conv func(lua.LValue) (T, bool), want string) answer[T] {
	switch v.Type() {
	case lua.LTNil:
		return nil
	case lua.LTFunction:
		return func(ctx context.Context, args func(*bindings.VM) (memberArgs, error)) (T, error) {
			var result T
			err := lt.invoke(ctx, nil, name, args, func(_ *bindings.VM, out []lua.LValue) error {
				r, ok := conv(first(out))
				if !ok {
					return lt.returnError(name, want, first(out))
				}
				result = r
				return nil
			})
			return result, err
		}
	}
	if r, ok := conv(v); ok {
		return func(context.Context, func(*bindings.VM) (memberArgs, error)) (T, error) { return r, nil }
	}
	return func(context.Context, func(*bindings.VM) (memberArgs, error)) (T, error) {
		var zero T
		return zero, fmt.Errorf("%s is %s, which it may not be (%w)", name, typeName(v), engine.ErrReportedAtLoad)
	}
}

// ofInput adapts an answer to the members that take the call's input.
func (a answer[T]) ofInput() func(context.Context, map[string]any) (T, error) {
	if a == nil {
		return nil
	}
	return func(ctx context.Context, input map[string]any) (T, error) { return a(ctx, inputArgs(input, nil)) }
}

// ofQuestion adapts an answer to isReadOnly and isConcurrencySafe, which take the
// input and, when the engine asks about a call (engine.AskedFor), the call's ctx:
// the answer may depend on what earlier calls left in the session's state.
func (a answer[T]) ofQuestion() func(context.Context, map[string]any) (T, error) {
	if a == nil {
		return nil
	}
	return func(ctx context.Context, input map[string]any) (T, error) {
		return a(ctx, inputArgs(input, engine.AskedFor(ctx)))
	}
}

// ofNothing adapts an answer to the members that take no argument.
func (a answer[T]) ofNothing() func(context.Context) (T, error) {
	if a == nil {
		return nil
	}
	return func(ctx context.Context) (T, error) { return a(ctx, nil) }
}

// ofValue adapts an answer to the members that take one JSON value (result data,
// progress, an error message).
func (a answer[T]) ofValue() func(context.Context, any) (T, error) {
	if a == nil {
		return nil
	}
	return func(ctx context.Context, v any) (T, error) {
		return a(ctx, func(vm *bindings.VM) (memberArgs, error) {
			lv, err := vm.ToLua(v)
			return argsOf(lv), err
		})
	}
}

func asString(v lua.LValue) (string, bool) {
	s, ok := v.(lua.LString)
	return string(s), ok
}

func asBool(v lua.LValue) (bool, bool) {
	b, ok := v.(lua.LBool)
	return bool(b), ok
}

// validateInput accepts true, {result = true}, {result = false, message = ..., errorCode = ...}
// and false, "message". Anything else is invalid: the safe reading.
func (lt *luaTool) validateInput(ctx context.Context, input map[string]any, cc *engine.CallContext) (engine.ValidationResult, error) {
	var r engine.ValidationResult
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

// checkPermissions accepts {behavior = ..., updatedInput = ..., message = ...,
// decisionReason = ...}; see safetyCheckOf for decisionReason.
func (lt *luaTool) checkPermissions(ctx context.Context, input map[string]any, cc *engine.CallContext) (engine.PermissionResult, error) {
	var r engine.PermissionResult
	err := lt.invoke(ctx, cc, "checkPermissions", inputArgs(input, cc), func(vm *bindings.VM, out []lua.LValue) error {
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
// contextModifier: the contract's (engine.ResultFields, engine.ContextChangeFields).
var (
	resultKeys        = setOf(engine.ResultFields())
	contextChangeKeys = setOf(engine.ContextChangeFields())
)

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

// call runs the tool. It accepts a ToolResult table, or a string, number, boolean or
// nil as shorthand for {data = value}; nil or false followed by a string is a failure
// with that message.
func (lt *luaTool) call(ctx context.Context, input map[string]any, cc *engine.CallContext) (*engine.ToolResult, error) {
	// One allocation for the result and the Call that makes it.
	f := &struct {
		r engine.ToolResult
		c bindings.Call
	}{}
	r := &f.r
	err := lt.invokeWithCall(ctx, cc, "call", &f.c, inputArgs(input, cc), func(vm *bindings.VM, c *bindings.Call, out []lua.LValue) error {
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
	return r, nil
}

// mapResult accepts a string, or a list of content blocks
// ({type = "text", text = ...} or {type = "image", source = {...}}).
func (lt *luaTool) mapResult(ctx context.Context, data any, toolUseID string) (engine.Content, error) {
	var c engine.Content
	err := lt.invoke(ctx, nil, "mapResult", func(vm *bindings.VM) (memberArgs, error) {
		d, err := vm.ToLua(data)
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

// contentBlocks checks a JSON value as a list of content blocks.
func contentBlocks(v any) (engine.Content, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("mapResult must return a string or a list of content blocks")
	}
	out := make(engine.Content, 0, len(list))
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
			out = append(out, engine.ContentBlock{Type: "text", Text: text})
		case "image":
			src, ok := m["source"].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("mapResult: image block %d needs a source table", i+1)
			}
			out = append(out, engine.ContentBlock{Type: "image", Source: src})
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
