package engine

import "context"

// A Crossing runs the members of one call of a tool together, for a loader whose
// members are costly to enter one by one: the Lua loader's take a state from its
// pool and convert the input to Lua, which one Crossing does once for the whole call
// (see ToolDef.Crossing). The engine knows nothing of what a Crossing holds: it asks
// the same members in the same order as without one (isReadOnly, validateInput,
// checkPermissions, call, mapResult), each only when the ToolDef has the member's
// function, and with the same arguments, so a Crossing changes what a call costs,
// never what it does.
//
// A Crossing serves one call, from one goroutine at a time, and is closed exactly
// once, when the call ends, on every path: it must give back there what it took.
// Between two members the pipeline may wait for anything (hooks, a person's answer
// to an ask): a Crossing must not hold what other calls wait for meanwhile (the Lua
// loader holds its state, never a slot of its gate). The input a member is given may
// differ from the one given before (a hook's or a permission's updatedInput), and a
// member must never see what an earlier member did to its own copy of the input.
// The pipeline is done with the ToolResult Call returns, and with the Crossing, once
// it closes it: a loader may reuse both for a later call.
type Crossing interface {
	IsReadOnly(ctx context.Context, input map[string]any) (bool, error)
	ValidateInput(ctx context.Context, input map[string]any, cc *CallContext) (ValidationResult, error)
	CheckPermissions(ctx context.Context, input map[string]any, cc *CallContext) (PermissionResult, error)
	Call(ctx context.Context, input map[string]any, cc *CallContext) (*ToolResult, error)
	MapResult(ctx context.Context, data any, toolUseID string) (Content, error)
	// Close ends the crossing.
	Close()
}

// crossing returns the Crossing of the running call, nil when its tool has none or
// cc is not a call's.
func (cc *CallContext) crossing() Crossing {
	if cc == nil {
		return nil
	}
	return cc.cross
}

// endCrossing closes the call's Crossing, which the pipeline defers as soon as it is
// started, so that it runs exactly once whatever ends the call; members asked after
// it (a host's render of the result, say) run one by one again.
func (cc *CallContext) endCrossing() {
	x := cc.cross
	cc.cross = nil
	x.Close()
}
