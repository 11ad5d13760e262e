package luaload

import (
	"context"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// memberValue converts member m, whose value in the tool table is v (not nil), into
// what engine.Member.Define takes, as the member table says: a plain value of the
// member's kind when the ToolDef holds it as it is (a hint for the flags: the engine
// then answers without a Lua call); otherwise a function of the member's Params and
// Answer, which for a plain value answers it. A value of a kind the member may not
// have (already reported) becomes a function that fails, when the member has a
// fail-closed answer, so that the answer applies; for any other member it is nil.
func (lt *luaTool) memberValue(vm *bindings.VM, m engine.Member, v lua.LValue) (any, error) {
	switch {
	case !kindMatches(m.Kind, v) && !m.FailsClosed:
		return nil, nil
	case kindMatches(m.Kind, v) && v.Type() != lua.LTFunction && m.HoldsValue():
		return plainValue(vm, m, v)
	}
	return lt.function(m, v)
}

// plainValue converts a plain value of m's kind into its Go value: string, bool,
// float64, []string, or for a schema map[string]any.
func plainValue(vm *bindings.VM, m engine.Member, v lua.LValue) (any, error) {
	switch m.Kind.Value {
	case "string":
		return string(v.(lua.LString)), nil
	case "boolean":
		return bool(v.(lua.LBool)), nil
	case "number":
		return float64(v.(lua.LNumber)), nil
	case "strings":
		list, _ := asStrings(v)
		return list, nil
	case "schema":
		plain, err := vm.FromLua(v)
		if err != nil {
			return nil, fmt.Errorf("%s is not a JSON value: %v", m.Name, err)
		}
		obj, ok := plain.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s must be a table with string keys (a JSON Schema object)", m.Name)
		}
		return obj, nil
	}
	return nil, fmt.Errorf("the Lua loader has no plain value of kind %q (member %s)", m.Kind.Value, m.Name)
}

// function returns the Go function of member m, whose value in the tool table is v:
// its answer read as m.Answer says, its arguments made from m.Params. The members
// that run for a call (coerceInput, validateInput, checkPermissions, call, mapResult)
// have readers of their own, in members.go.
func (lt *luaTool) function(m engine.Member, v lua.LValue) (any, error) {
	switch m.Answer {
	case "string":
		return shaped(m, newAnswer(lt, m, v, asString, "a string"))
	case "boolean":
		return shaped(m, newAnswer(lt, m, v, asBool, "a boolean"))
	case "strings":
		return shaped(m, newAnswer(lt, m, v, asStrings, "a string or a list of strings"))
	case "input, note?":
		return lt.coerceInput, nil
	case "validation":
		return lt.validateInput, nil
	case "permission":
		return lt.checkPermissions, nil
	case "result":
		return lt.call, nil
	case "content":
		return lt.mapResult, nil
	}
	return nil, fmt.Errorf("the Lua loader cannot read an answer of kind %q (member %s)", m.Answer, m.Name)
}

// shaped adapts an answer to the Go function its member's Params make.
func shaped[T any](m engine.Member, a answer[T]) (any, error) {
	switch params := strings.Join(m.Params, ", "); params {
	case "":
		return a.ofNothing(), nil
	case "opts":
		return a.ofPromptOptions(), nil
	case "input":
		return a.ofInput(), nil
	case "input, ctx?":
		return a.ofQuestion(), nil
	case "input, opts":
		return a.ofInputAndOptions(), nil
	case "data", "progress":
		return a.ofValue(), nil
	case "message":
		return a.ofMessage(), nil
	default:
		return nil, fmt.Errorf("the Lua loader cannot call a member with (%s) (member %s)", params, m.Name)
	}
}

// An answer is the Go side of a member that answers a question: a plain value, or a
// function called with the arguments args builds. It is nil for an absent member.
type answer[T any] func(ctx context.Context, args func(*bindings.VM) (memberArgs, error)) (T, error)

// newAnswer builds the answer of member m, whose value in the tool table is v: a
// function is called on a pooled state and its first result read with conv (want
// says what it must be, unless the member's kind lists its values); a plain value is
// read with conv once, here; anything else is of a kind the member may not have,
// already reported when the tool loaded, and the answer fails so that the safe
// answer applies.
func newAnswer[T any](lt *luaTool, m engine.Member, v lua.LValue, conv func(lua.LValue) (T, bool), want string) answer[T] {
	name := m.Name
	if len(m.Kind.Values) > 0 {
		want = `"` + strings.Join(m.Kind.Values, `" or "`) + `"`
	}
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
		return zero, wrongKind(name, v)
	}
}

// ofNothing adapts an answer to the members that take no argument.
func (a answer[T]) ofNothing() func(context.Context) (T, error) {
	if a == nil {
		return nil
	}
	return func(ctx context.Context) (T, error) { return a(ctx, nil) }
}

// ofPromptOptions adapts an answer to prompt, which takes {tools = {...}}.
func (a answer[T]) ofPromptOptions() func(context.Context, engine.PromptOptions) (T, error) {
	if a == nil {
		return nil
	}
	return func(ctx context.Context, opts engine.PromptOptions) (T, error) {
		return a(ctx, func(vm *bindings.VM) (memberArgs, error) {
			o, err := vm.ToLua(map[string]any{"tools": stringsToAny(opts.Tools)})
			return argsOf(o), err
		})
	}
}

// wrongKind is the failure of member name, whose value v is of a kind it may not
// have, as reported when the tool loaded.
func wrongKind(name string, v lua.LValue) error {
	return fmt.Errorf("%s is %s, which it may not be (%w)", name, typeName(v), diag.ErrReported)
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

// ofInputAndOptions adapts an answer to description, which takes the input and an
// options table (the original's; empty in luatool).
func (a answer[T]) ofInputAndOptions() func(context.Context, map[string]any) (T, error) {
	if a == nil {
		return nil
	}
	return func(ctx context.Context, input map[string]any) (T, error) {
		return a(ctx, func(vm *bindings.VM) (memberArgs, error) {
			in, err := vm.ToLua(input)
			return argsOf(in, vm.L.NewTable()), err
		})
	}
}

// ofValue adapts an answer to the members that take one JSON value (result data,
// progress).
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

// ofMessage adapts an answer to the members that take an error message.
func (a answer[T]) ofMessage() func(context.Context, string) (T, error) {
	if a == nil {
		return nil
	}
	return func(ctx context.Context, msg string) (T, error) {
		return a(ctx, func(*bindings.VM) (memberArgs, error) { return argsOf(lua.LString(msg)), nil })
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

// asStrings reads a string as a list of one, or a table that is a list of strings.
func asStrings(v lua.LValue) ([]string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return []string{string(x)}, true
	case *lua.LTable:
		if !kindMatches(engine.MemberKind{Value: "strings"}, x) {
			return nil, false
		}
		list := make([]string, x.Len())
		for i := range list {
			list[i] = string(x.RawGetInt(i + 1).(lua.LString))
		}
		return list, true
	}
	return nil, false
}
