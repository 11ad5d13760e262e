package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
)

// nesting is what a call needs to run calls of other tools inside it (CallTool): the
// context the call was made with (its principal, its hooks, its turn's
// cancellation), the tool it serves, its turn, and how many nested calls it made.
type nesting struct {
	ctx   context.Context
	tool  *Tool
	turn  *turn
	calls atomic.Int64
}

// nestedKey marks the context of a nested call: nested calls do not nest further.
type nestedKey struct{}

// CallTool runs a call of another tool from inside this call, as code mode does for
// the calls a model's script makes: through the whole pipeline, as the model's own
// call of that tool would go. The tool is looked up in the snapshot serving this
// call, as this call's principal sees it; the input (a JSON object) is validated
// against the tool's schema and by its validateInput; the permission step applies
// the principal's rules and profile, the session's "always" rules, the turn's mode
// and rules, and an ask goes to the same CanUseTool (none means a deny); the call
// sees the session's state and readFileState, and what it shows the model is
// recorded there, as for any call.
//
// The nested call's tool_use id is this call's followed by "." and the number of
// the nested call (toolu_1.1, toolu_1.2, ...). It stops when ctx ends or this call's
// own context does, whichever is first. Its ContextChange is dropped, as that of a
// call run beside others is: the calls of a script do not change the turn of the
// model's calls.
//
// Nested calls do not nest: CallTool refuses inside a nested call, and refuses a
// call of the tool making it; the refusal is an is_error result at StageLookup. It
// is safe for concurrent use. A CallContext no engine made (a tool's unit test)
// has no pipeline to call through: every call is refused.
func (cc *CallContext) CallTool(ctx context.Context, name string, input json.RawMessage) *Result {
	n := &cc.nest
	id := cc.ToolUseID + "." + strconv.FormatInt(n.calls.Add(1), 10)
	r := &Result{Block: ResultBlock{Type: "tool_result", ToolUseID: id}}
	if cc.engine == nil || n.turn == nil {
		return r.fail(StageLookup, toolUseError("Error: "+name+" cannot be called from here: no engine runs this call"))
	}
	if n.ctx.Value(nestedKey{}) != nil {
		return r.fail(StageLookup, toolUseError(fmt.Sprintf("Error: %s cannot be called from inside %s: a nested call cannot make calls of its own", name, n.tool.Name())))
	}
	p := cc.engine.prepare(ctx, cc.registry, ToolUse{ID: id, Name: name, Input: input})
	if p.tool != nil && p.tool == n.tool {
		return r.fail(StageLookup, toolUseError(fmt.Sprintf("Error: %s cannot call itself", name)))
	}
	inner, cancel := context.WithCancel(context.WithValue(n.ctx, nestedKey{}, true))
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	r = cc.engine.call(inner, &p, n.turn)
	r.ContextChange = nil
	return r
}
