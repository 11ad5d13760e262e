package engine

import "context"

// CallHooks are per-call versions of Options.OnProgress and Options.CanUseTool,
// carried by a context in the way of net/http/httptrace: a host serving several
// clients (an MCP server) routes each call's progress and permission asks to the
// client that made the call. A nil field leaves the engine's option in force.
type CallHooks struct {
	OnProgress func(ProgressEvent)
	CanUseTool CanUseToolFunc
}

type hooksKey struct{}

// WithCallHooks returns a context whose calls (Call, Run) use the hooks given.
func WithCallHooks(ctx context.Context, h CallHooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// hooks returns the hooks in force for a call made with ctx.
func (e *Engine) hooks(ctx context.Context) CallHooks {
	h, _ := ctx.Value(hooksKey{}).(CallHooks)
	if h.OnProgress == nil {
		h.OnProgress = e.opts.OnProgress
	}
	if h.CanUseTool == nil {
		h.CanUseTool = e.opts.CanUseTool
	}
	return h
}
