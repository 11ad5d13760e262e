package engine

import "context"

// askedForKey carries, in the context of a question member (isReadOnly,
// isConcurrencySafe), the call it is asked about.
type askedForKey struct{}

// AskedFor returns the call a question member (isReadOnly, isConcurrencySafe) is
// being asked about, for a loader to give the member the call's context: its
// working directory, roots, mode and session state (a tool whose answer depends on
// what earlier calls of the session left, as Bash's working directory, needs it).
// Asked while orchestrating, before the call starts, it is a context built for the
// question only (Cwd, Roots, Mode, State, Session, Tools). Nil when the member is
// asked outside a call.
func AskedFor(ctx context.Context) *CallContext {
	cc, _ := ctx.Value(askedForKey{}).(*CallContext)
	return cc
}

// askingFor returns ctx for asking a question member about cc.
func askingFor(ctx context.Context, cc *CallContext) context.Context {
	return context.WithValue(ctx, askedForKey{}, cc)
}

// questionContext is the CallContext a question asked before the call starts
// (concurrency safety, while a turn is partitioned) gets: the session's state as
// the call would see it.
func (p *PendingCall) questionContext(ctx context.Context) *CallContext {
	tc := p.e.newTurn(ctx)
	state := tc.session.state(ctx)
	return &CallContext{Cwd: tc.cwd, Roots: p.e.opts.Roots, Mode: tc.mode, State: &state,
		Session: tc.session.key, Tools: p.reg.Names()}
}
