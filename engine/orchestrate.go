package engine

import (
	"context"
	"sync"

	"github.com/luatool/luatool/engine/rules"
)

// defaultMaxToolUseConcurrency is how many concurrency-safe calls of one batch Run
// runs at once, unless Options.MaxToolUseConcurrency says otherwise (the CLI reads it
// from LUATOOL_MAX_TOOL_USE_CONCURRENCY, as the original does its variable).
const defaultMaxToolUseConcurrency = 10

// turn is the context that calls of one turn share and that context modifiers change.
type turn struct {
	cwd   string
	mode  rules.Mode
	rules rules.Additions
	// policy is the engine's policy when the turn started: its calls keep it.
	policy *policy
	// session is where the turn's state lives; profile is its principal's.
	session sessionOf
	profile *Profile
	// abort stops the turn, when a person refused a call and asked to stop; nil for a
	// single Call.
	abort context.CancelFunc
}

// newTurn starts a turn for the principal of ctx: in its session, with its profile's
// mode when the profile sets one.
func (e *Engine) newTurn(ctx context.Context) turn {
	p := PrincipalOf(ctx)
	pol := e.policy.Load()
	tc := turn{cwd: e.opts.Cwd, mode: pol.mode, policy: pol, session: e.sessionFor(ctx), profile: p.Profile}
	if p.Profile != nil && p.Profile.mode != "" {
		tc.mode = p.Profile.mode
	}
	return tc
}

// apply makes a tool's context change for the later calls of the turn.
func (tc *turn) apply(ctx context.Context, ch *ContextChange) {
	if ch.Cwd != "" {
		tc.cwd = ch.Cwd
	}
	if ch.Mode != "" {
		tc.mode = ch.Mode
	}
	tc.rules.Allow = append(tc.rules.Allow, ch.Allow...)
	tc.rules.Ask = append(tc.rules.Ask, ch.Ask...)
	tc.rules.Deny = append(tc.rules.Deny, ch.Deny...)
	state := tc.session.state(ctx)
	for k, v := range ch.State {
		if err := state.Set(k, v); err != nil {
			tc.session.e.opts.Logger.Warn("a tool's state change is lost: the session store failed", "key", k, "err", err)
		}
	}
}

// Run runs the tool_use blocks of one model turn and returns one result for each, in
// the order of uses.
//
// The calls are partitioned in order: a run of consecutive calls that are
// concurrency-safe for their input (the tool exists, the input validates, and
// isConcurrencySafe says so) forms one batch whose calls run side by side, at most
// MaxToolUseConcurrency at a time; every other call runs alone. Batches run one after
// another. A call's ContextChange applies at once to the calls after it when the call
// ran alone; those of concurrency-safe calls are dropped. Progress events stream
// through Options.OnProgress with the tool_use id as they happen.
//
// Cancelling ctx stops the turn: calls not started get the cancel result, calls
// running get the interrupt result (Lua code is stopped where it is). A host that
// wants to interrupt only tools that allow it (a new user message arriving) can ask
// Result.Tool.InterruptBehavior before cancelling.
func (e *Engine) Run(ctx context.Context, uses []ToolUse) []*Result {
	reg := e.registryFor(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tc := e.newTurn(ctx)
	tc.abort = cancel
	pending := make([]PendingCall, len(uses))
	for i, use := range uses {
		pending[i] = e.prepare(ctx, reg, use)
	}
	results := make([]*Result, len(uses))
	for start := 0; start < len(uses); {
		end := start + 1
		if pending[start].ConcurrencySafe(ctx) {
			for end < len(uses) && pending[end].ConcurrencySafe(ctx) {
				end++
			}
			e.runBatch(ctx, pending[start:end], results[start:end], &tc)
		} else {
			r := e.call(ctx, &pending[start], &tc)
			if r.ContextChange != nil && r.Stage == StageDone {
				tc.apply(ctx, r.ContextChange)
			}
			results[start] = r
		}
		start = end
	}
	return results
}

// runBatch runs concurrency-safe calls side by side, at most the concurrency limit
// at once. They all see the turn's context as it was before the batch.
func (e *Engine) runBatch(ctx context.Context, calls []PendingCall, out []*Result, tc *turn) {
	snapshot := *tc
	limit := e.maxToolUseConcurrency()
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range calls {
		p := &calls[i]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t := snapshot
			out[i] = e.call(ctx, p, &t)
		}()
	}
	wg.Wait()
}

// maxToolUseConcurrency is the batch limit: the option, else the default.
func (e *Engine) maxToolUseConcurrency() int {
	if n := e.opts.MaxToolUseConcurrency; n > 0 {
		return n
	}
	return defaultMaxToolUseConcurrency
}
