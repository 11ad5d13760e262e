package luatool

import (
	"context"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/rules"
)

// A Tool is a Go tool written as a function of a Go input type to a Go output type
// (engine.TypedTool): its input schema comes from In, and a call's validated input
// arrives decoded into one. It goes through the same defaults and pipeline as the Lua
// tools.
type Tool[In, Out any] = engine.TypedTool[In, Out]

// CallContext is what a tool's call sees of the call and its session
// (engine.CallContext): the working directory and roots, the session's state,
// progress and logging.
type CallContext = engine.CallContext

// AddTool adds a Go tool to the Runtime's tools, as the MCP SDK's AddTool adds one to
// a server: callers and MCP clients see it at once. A tool file's tool of the same
// name overrides it, with a notice. A tool the engine refuses (a name a Go tool has
// already, an input type that is not a struct) is a mistake of the program, and
// AddTool panics with it, as the SDK's does.
func AddTool[In, Out any](r *Runtime, t Tool[In, Out]) {
	def, err := t.Def()
	if err == nil {
		err = r.eng.AddTools(def)
	}
	if err != nil {
		panic("luatool.AddTool: " + err.Error())
	}
}

// PermissionRequest is what Options.Ask is asked about (engine.PermissionRequest):
// the tool, its input, Description (what the call would do) and Message (why the
// pipeline asks).
type PermissionRequest = engine.PermissionRequest

// An Answer answers a permission ask. The zero value is Deny.
type Answer int

// The answers to a permission ask.
const (
	// Deny refuses the call: the model is told permission was not granted.
	Deny Answer = iota
	// Allow allows this call.
	Allow
	// AllowAlways allows this call and, for the rest of the Runtime's life, the calls
	// the request's Suggestions cover (a call that would write something protected
	// is allowed this once: a person allows each of those).
	AllowAlways
)

// canUseTool is the engine's callback of an Ask; nil, which denies, for none. A
// protected call is denied without asking unless askProtected.
func canUseTool(ask func(context.Context, PermissionRequest) Answer, askProtected bool) engine.CanUseToolFunc {
	if ask == nil {
		return nil
	}
	return func(ctx context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		if req.Protected && !askProtected {
			return engine.PermissionDecision{Behavior: rules.Deny}, nil
		}
		switch ask(ctx, req) {
		case Allow:
			return engine.PermissionDecision{Behavior: rules.Allow}, nil
		case AllowAlways:
			return engine.PermissionDecision{Behavior: rules.Allow, AddRules: req.Suggestions}, nil
		}
		return engine.PermissionDecision{Behavior: rules.Deny}, nil
	}
}
