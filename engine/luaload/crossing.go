package luaload

import (
	"context"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
)

// A crossing is one call of a Lua tool (engine.Crossing): its members run on one
// state, taken from the tool's pool at the first of them and given back when the
// call ends, so that the input is converted to Lua once and call's data reach
// mapResult as Lua.
//
// What the members share is held to what they could share before, when each took a
// state of its own and a fresh conversion of the input: before the Lua input goes to
// a member, it is checked to be still, in every part, the conversion of the input
// the member is given (bindings.VM.Mirrors), and converted afresh when it is not (an
// earlier member changed it, or a hook or a permission updated the input). The same
// holds for the data mapResult is given. A member holds a slot of the gate only while
// it runs: between members the call may wait for hooks or a person, holding its state
// but no slot. A state a member broke (an error, a timeout, a panic) goes back to the
// pool, which drops it, and the next member takes another.
type crossing struct {
	lt *luaTool
	vm *bindings.VM
	// input is the input as converted on vm for the last member given it; nil when
	// none was.
	input lua.LValue
	// data is what call returned as its data, on vm, for mapResult; nil when call
	// has not run on vm.
	data lua.LValue
	// result is what call fills in: one allocation for the crossing and the result.
	result callResult
}

// callResult is what one call of the call member makes: its result and the Call it
// runs under.
type callResult struct {
	r engine.ToolResult
	c bindings.Call
}

// crossings keeps the crossings of calls that ended, for later calls of any Lua
// tool, so that a call allocates none. Close gives a crossing back, emptied, so that
// the pool holds nothing of a call; the engine closes a Crossing exactly once and
// holds it no longer (CallContext.endCrossing forgets it before it closes it).
var crossings = sync.Pool{New: func() any { return new(crossing) }}

// newCrossing is the tool's ToolDef.Crossing.
func (lt *luaTool) newCrossing() engine.Crossing {
	x := crossings.Get().(*crossing)
	x.lt = lt
	return x
}

// state returns the crossing's state, taking one from the pool when it has none or
// the one it had broke.
func (x *crossing) state() (*bindings.VM, error) {
	if x.vm != nil && x.vm.Broken() {
		x.release()
	}
	if x.vm == nil {
		vm, err := x.lt.pool.Get()
		if err != nil {
			return nil, err
		}
		x.vm = vm
	}
	return x.vm, nil
}

// release gives the state back to the pool, with what was converted on it.
func (x *crossing) release() {
	if x.vm != nil {
		x.lt.pool.Put(x.vm)
	}
	x.vm, x.input, x.data = nil, nil, nil
}

// Close gives the state back, and the crossing to crossings; the engine calls it
// once, when the call ends. A second Close before the crossing serves another call
// does nothing: its tool is forgotten.
func (x *crossing) Close() {
	if x.lt == nil {
		return
	}
	x.release()
	*x = crossing{}
	crossings.Put(x)
}

// IsReadOnly asks isReadOnly on the crossing's state.
func (x *crossing) IsReadOnly(ctx context.Context, input map[string]any) (bool, error) {
	var r bool
	err := x.lt.invokeOn(ctx, nil, "isReadOnly", x, x.inputArgs(input, engine.AskedFor(ctx)), func(_ *bindings.VM, out []lua.LValue) error {
		b, ok := asBool(first(out))
		if !ok {
			return x.lt.returnError("isReadOnly", "a boolean", first(out))
		}
		r = b
		return nil
	})
	return r, err
}

// ValidateInput runs validateInput on the crossing's state.
func (x *crossing) ValidateInput(ctx context.Context, input map[string]any, cc *engine.CallContext) (engine.ValidationResult, error) {
	return x.lt.validateInputOn(ctx, input, cc, x)
}

// CheckPermissions runs checkPermissions on the crossing's state.
func (x *crossing) CheckPermissions(ctx context.Context, input map[string]any, cc *engine.CallContext) (engine.PermissionResult, error) {
	return x.lt.checkPermissionsOn(ctx, input, cc, x)
}

// Call runs call on the crossing's state.
func (x *crossing) Call(ctx context.Context, input map[string]any, cc *engine.CallContext) (*engine.ToolResult, error) {
	return x.lt.callOn(ctx, input, cc, x)
}

// MapResult runs mapResult on the crossing's state.
func (x *crossing) MapResult(ctx context.Context, data any, toolUseID string) (engine.Content, error) {
	return x.lt.mapResultOn(ctx, data, toolUseID, x)
}

// inputArgs converts the input, and the ctx object when cc is given: once for a
// crossing, whose members are given the same Lua input for as long as it mirrors
// input. Without a crossing (x nil) it converts afresh every time.
func (x *crossing) inputArgs(input map[string]any, cc *engine.CallContext) func(vm *bindings.VM) (memberArgs, error) {
	if x == nil {
		return inputArgs(input, cc)
	}
	return func(vm *bindings.VM) (memberArgs, error) {
		if x.input == nil || !vm.Mirrors(x.input, input) {
			in, err := vm.ToLua(input)
			if err != nil {
				x.input = nil
				return memberArgs{}, err
			}
			x.input = in
		}
		if cc == nil {
			return argsOf(x.input), nil
		}
		return argsOf(x.input, luaContextFor(vm, cc)), nil
	}
}

// callResult returns the result for a call of call to fill in: the crossing's, or
// a new one without a crossing.
func (x *crossing) callResult() *callResult {
	if x == nil {
		return new(callResult)
	}
	x.result = callResult{}
	return &x.result
}

// keepData keeps what call returned as its data, for mapResult; nothing without a
// crossing.
func (x *crossing) keepData(v lua.LValue) {
	if x != nil {
		x.data = v
	}
}

// dataArg is data as mapResult is given it: what call returned, when it still
// mirrors data (no hook replaced it, no Lua code changed it since: mapResult sees
// what the host sees, the JSON value, never more), or else data converted afresh.
func (x *crossing) dataArg(vm *bindings.VM, data any) (lua.LValue, error) {
	if x != nil && x.data != nil && vm.Mirrors(x.data, data) {
		return x.data, nil
	}
	return vm.ToLua(data)
}

// validateInput, checkPermissions, call and mapResult are the members without a
// crossing, each on a state of its own, for the ToolDef.
func (lt *luaTool) validateInput(ctx context.Context, input map[string]any, cc *engine.CallContext) (engine.ValidationResult, error) {
	return lt.validateInputOn(ctx, input, cc, nil)
}

func (lt *luaTool) checkPermissions(ctx context.Context, input map[string]any, cc *engine.CallContext) (engine.PermissionResult, error) {
	return lt.checkPermissionsOn(ctx, input, cc, nil)
}

func (lt *luaTool) call(ctx context.Context, input map[string]any, cc *engine.CallContext) (*engine.ToolResult, error) {
	return lt.callOn(ctx, input, cc, nil)
}

func (lt *luaTool) mapResult(ctx context.Context, data any, toolUseID string) (engine.Content, error) {
	return lt.mapResultOn(ctx, data, toolUseID, nil)
}
