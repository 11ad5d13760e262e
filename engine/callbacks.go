package engine

import "context"

// Callbacks are per-call versions of Options.OnProgress and Options.CanUseTool,
// carried by a context in the way of net/http/httptrace: a host serving several
// clients (an MCP server) routes each call's progress and permission asks to the
// client that made the call. A nil field leaves the engine's option in force. They
// are the host's callbacks, not hooks: hooks are the user's code that runs around
// each call (see Options.Hooks).
type Callbacks struct {
	OnProgress func(ProgressEvent)
	CanUseTool CanUseToolFunc
}

type callbacksKey struct{}

// WithCallbacks returns a context whose calls (Call, Run) use the callbacks given.
func WithCallbacks(ctx context.Context, c Callbacks) context.Context {
	return context.WithValue(ctx, callbacksKey{}, c)
}

// callbacks returns the callbacks in force for a call made with ctx.
func (e *Engine) callbacks(ctx context.Context) Callbacks {
	c, _ := ctx.Value(callbacksKey{}).(Callbacks)
	if c.OnProgress == nil {
		c.OnProgress = e.opts.OnProgress
	}
	if c.CanUseTool == nil {
		c.CanUseTool = e.opts.CanUseTool
	}
	return c
}
