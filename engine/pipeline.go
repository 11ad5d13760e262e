package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/schema"
	"github.com/luatool/luatool/internal/callctx"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// Texts the model sees, in the original system's wording where it has one.
const (
	// cancelMessage answers a call whose turn was cancelled before it started.
	cancelMessage = "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed."
	// interruptMessage answers a call cancelled while it ran.
	interruptMessage = "[Request interrupted by user for tool use]"
	// rejectMessage answers a call the person refused, stopping the turn.
	rejectMessage = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
	// maxErrorChars is where error texts are cut in the middle.
	maxErrorChars = 10000
)

// Stage names the step of the pipeline where a call ended.
type Stage string

// The stages, in pipeline order.
const (
	StageLookup     Stage = "lookup"
	StageAbort      Stage = "abort"
	StageInput      Stage = "input"
	StageValidate   Stage = "validate"
	StagePermission Stage = "permission"
	StageCall       Stage = "call"
	StageResult     Stage = "result"
	StageDone       Stage = "done"
)

// Result is the outcome of one call: the tool_result block for the model and what
// the host may want besides.
type Result struct {
	// Block is the tool_result. Every call yields exactly one.
	Block ResultBlock
	// Stage is where the call ended: StageDone for a call that ran and mapped,
	// otherwise the stage that stopped it.
	Stage Stage
	// Tool is the tool that served the call; nil when lookup failed.
	Tool *Tool
	// Input is the input the tool was called with (validated, coerced, defaults filled,
	// possibly updated by a permission decision); nil before validation succeeded.
	Input map[string]any
	// Data is what call returned, for hosts that show it; nil unless the call ran.
	Data any
	// NewMessages follow the tool_result.
	NewMessages []any
	// MCPMeta is what the tool asked to pass to MCP clients as the result's _meta.
	MCPMeta map[string]any
	// Log holds the lines the tool logged.
	Log []string
	// PersistedPath is the file holding the whole result when it was too large.
	PersistedPath string
	// ContextChange is what the tool asked to change for the later calls of the turn;
	// Run applies it for tools that are not concurrency-safe for their input.
	ContextChange *ContextChange
	// Err is the error that ended a failed call or mapResult, for the host's logs (a
	// *bindings.ScriptError from Lua carries a traceback). The model sees Block only.
	Err error
}

// PermissionRequest is what CanUseTool is asked about.
type PermissionRequest struct {
	Tool      *Tool
	ToolUseID string
	Input     map[string]any
	// Description is the tool's per-call summary, for the prompt.
	Description string
	// Message is why the pipeline asks.
	Message string
	// Suggestions are rules that would allow calls like this one from now on, for an
	// "allow always" answer.
	Suggestions []string
	// Protected is set when the call would write something protected (see
	// ProtectedPath): the ask of the safety check, which no rule can answer, so
	// Suggestions is empty. Only a person may allow it: a host that answers every ask
	// alike (luatool's --yes) must refuse it, and AddRules are not kept.
	Protected bool
}

// PermissionDecision is CanUseTool's answer.
type PermissionDecision struct {
	// Behavior is Allow or Deny; anything else is a deny.
	Behavior rules.Behavior
	// UpdatedInput, with Allow, replaces the input.
	UpdatedInput map[string]any
	// Message is the person's feedback with a deny, passed to the model.
	Message string
	// AddRules are allow rules to keep for the rest of the engine's life ("allow
	// always"), typically chosen from the request's Suggestions. They must be valid
	// rules (rules.Check).
	AddRules []string
	// Abort, with a deny, stops the turn: Run gives the calls after this one the
	// cancel result.
	Abort bool
}

// CanUseToolFunc decides an ask. It may block while a person answers.
type CanUseToolFunc func(ctx context.Context, req PermissionRequest) (PermissionDecision, error)

// Call runs one tool_use through the pipeline on the current snapshot and returns
// exactly one result, whatever happens: lookup, abort check, schema validation with
// coercion and defaults, validateInput, permissions, call under the deadline,
// mapResult, the empty-result text and persistence of large results.
func (e *Engine) Call(ctx context.Context, use ToolUse) *Result {
	p := e.prepare(ctx, e.registryFor(ctx), use)
	return e.call(ctx, &p, nil)
}

// A PendingCall is a tool_use looked up in one registry snapshot, with its input
// decoded and validated, ready to run: a host that weighs a call before running it
// (may it run beside others?) asks the PendingCall and then runs it, so that the
// answer and the call concern the same version of the tool and the input is decoded
// once. Engine.Run does the same for a turn.
type PendingCall struct {
	e     *Engine
	reg   *Registry
	use   ToolUse
	tool  *Tool          // nil when the lookup failed
	input map[string]any // the validated input; nil when it failed
	err   error          // why the input failed
	steer string         // what the tool says before err's problems, if anything
	note  string         // what a successful text result ends with: coerceInput's note
}

// Prepare looks use up in the current snapshot, as the principal of ctx sees it, and
// validates its input. Problems are not errors here: the PendingCall's Call reports
// them as the pipeline does.
func (e *Engine) Prepare(ctx context.Context, use ToolUse) *PendingCall {
	p := e.prepare(ctx, e.registryFor(ctx), use)
	return &p
}

// prepare is Prepare in reg, by value: Call keeps its PendingCall on its stack. The
// tool's coerceInput and validationErrorSteer run under ctx.
func (e *Engine) prepare(ctx context.Context, reg *Registry, use ToolUse) PendingCall {
	p := PendingCall{e: e, reg: reg, use: use}
	t, ok := reg.Lookup(use.Name)
	if !ok {
		return p
	}
	p.tool = t
	depth := e.opts.MaxInputDepth
	if d := t.def.MaxInputDepth; d > 0 && d < depth {
		depth = d
	}
	input, err := decodeInput(use.Input, depth, t.Schema().Keys())
	if err != nil {
		p.err = err
		return p
	}
	if p.input, p.err = t.Schema().Prepare(input); p.err == nil {
		return p
	}
	// Only an input the schema refuses is mended: a mend fixes what the schema
	// refuses, so a valid input costs no call into the tool. The mend gets the input
	// as sent, without what the failed Prepare coerced and filled in.
	if t.def.CoerceInput != nil {
		input, _ = decodeInput(use.Input, depth, t.Schema().Keys())
		mended, note := t.CoerceInput(ctx, input)
		if p.input, p.err = t.Schema().Prepare(mended); p.err == nil {
			p.note = note
			return p
		}
	}
	var ve *schema.ValidationError
	if errors.As(p.err, &ve) {
		ve.OrderUnexpected(jsonvalue.Keys(use.Input))
	}
	p.steer = t.ValidationErrorSteer(ctx, input)
	return p
}

// ConcurrencySafe reports whether the call may run beside others: the tool exists,
// its input validates, and the tool says so for that input (within the member
// timeout). Anything else runs alone.
func (p *PendingCall) ConcurrencySafe(ctx context.Context) bool {
	if p.tool == nil || p.err != nil {
		return false
	}
	return p.tool.IsConcurrencySafe(askingFor(ctx, p.questionContext(ctx)), p.input)
}

// Call runs the pending call through the rest of the pipeline, as Engine.Call does.
// A PendingCall is run once.
func (p *PendingCall) Call(ctx context.Context) *Result {
	return p.e.call(ctx, p, nil)
}

// call runs p through the pipeline in the turn tc; nil is a turn of the call's own.
func (e *Engine) call(ctx context.Context, p *PendingCall, tc *turn) *Result {
	use, reg := p.use, p.reg
	st := &callState{r: Result{Block: ResultBlock{Type: "tool_result", ToolUseID: use.ID}}}
	r := &st.r
	st.redact = e.opts.Env.Redactor()
	if st.redact != nil {
		defer redactResult(st.redact, r)
	}

	// 1. lookup.
	t := p.tool
	if t == nil {
		msg := "Error: No such tool available: " + use.Name
		if s := reg.Suggest(use.Name); s != "" {
			msg += ". Did you mean " + s + "?"
		}
		return r.fail(StageLookup, toolUseError(msg))
	}
	r.Tool = t

	// 2. abort check.
	if ctx.Err() != nil {
		if err := storeCause(ctx); err != nil {
			r.Err = err
			return r.fail(StageAbort, storeUnavailableText(t.Name()))
		}
		if text, ok := causeText(ctx); ok {
			return r.fail(StageAbort, text)
		}
		return r.fail(StageAbort, cancelMessage)
	}

	if tc == nil {
		st.ownTurn = e.newTurn(ctx)
		tc = &st.ownTurn
	}
	callbacks := e.callbacks(ctx)
	st.state = tc.session.state(ctx)
	st.files = tc.session.files(ctx)
	st.state.fault, st.files.fault = &st.fault, &st.fault
	defer st.failOnStoreFault()
	// Set field by field: st is new and zero, and a composite literal would be built
	// aside and then copied in, with the write barriers of a copy.
	cc := &st.cc
	cc.ToolUseID, cc.Cwd, cc.Roots, cc.Mode, cc.Tools = use.ID, tc.cwd, e.opts.Roots, tc.mode, reg.Names()
	cc.State, cc.Files, cc.Session = &st.state, &st.files, tc.session.key
	cc.engine, cc.registry, cc.nest = e, reg, nesting{ctx: ctx, tool: t, turn: tc}
	cc.logTo, cc.Progress, cc.Client = st, noProgress, callbacks.Client
	if callbacks.OnProgress != nil {
		st.onProgress = callbacks.OnProgress
		cc.Progress = st.progress
	}
	// Read deny rules hide paths from whatever the tool lists or searches, and from
	// the shell commands it runs (the kernel sandbox walks with both tests).
	cc.rules = e.rulesFor(tc)
	cc.hidden, cc.hiddenBelow = cc.rules.HiddenPaths(tc.cwd), cc.rules.HiddenBelow(tc.cwd)

	// 3. schema: decoded, coerced, defaults filled and validated by prepare (mended by coerceInput when refused).
	st.input = p.input
	if err := p.err; err != nil {
		msg := inputValidationText(t.Name(), p.steer, err)
		if t.Deferred() && !tc.session.discovered(ctx)[t.Name()] {
			msg += "\n\n" + undiscoveredHint(t.Name())
		}
		return r.fail(StageInput, toolUseError(msg))
	}
	r.Input = st.input
	// From here the members run through the tool's Crossing, when it has one, which
	// is closed exactly once, however the call ends.
	if t.def.Crossing != nil {
		cc.cross = t.def.Crossing()
		defer cc.endCrossing()
	}

	// Whether the call may change anything is asked once, first, under the member
	// bound and the call timeout, whichever is shorter, but not out of the call's
	// deadline (a hanging isReadOnly must not spend it): only a call that is not
	// read-only may change anything, and an isReadOnly that fails or hangs means not
	// read-only.
	// A declared answer runs no code, and needs no bound of its own.
	if t.def.IsReadOnly == nil {
		cc.readOnly = t.IsReadOnly(ctx, st.input)
	} else {
		asking, cancelAsking := context.WithTimeout(askingFor(ctx, cc), e.opts.Timeout)
		cc.readOnly = t.readOnlyIn(asking, st.input, cc)
		cancelAsking()
	}
	cc.readOnlyKnown = true

	// One deadline bounds the tool's own code from here to the end, except the time a
	// person takes to answer an ask: after an ask the clock starts again.
	st.bounded = e.bound(ctx, cc, &st.firstBound)
	defer func() { st.bounded.Cancel() }()

	// 4. validateInput.
	v := t.ValidateInput(st.bounded, st.input, cc)
	if !v.Valid {
		return r.fail(StageValidate, toolUseError(v.Message))
	}

	// 5. PreToolUse hooks and middleware: the hooks, then the middleware around the
	// rest of the call (see package hooks for the order). Hooks run inside the call's deadline: a call
	// whose time ran out in them ends there, as timed out. A call with neither hooks
	// nor middleware has no hooks.Input to fill (c.In is nil in rest): only they read
	// it.
	var c *hooks.Call
	if e.hooked(reg, tc.policy) {
		c = &hooks.Call{In: &hooks.Input{
			SessionID: tc.session.key, Cwd: tc.cwd, PermissionMode: tc.mode, HookEventName: hooks.PreToolUse,
			ToolName: t.Name(), ToolInput: e.hookCopy(st.input), ToolUseID: use.ID,
		}}
		c.Decision = hooks.Run(st.bounded, e.hooksFor(reg, tc.policy, hooks.PreToolUse, t.Name()), c.In, e.opts.Logger)
	}
	if err := st.bounded.Err(); err != nil {
		return r.fail(StagePermission, callErrorText(ctx, st.bounded, t, e.opts.Timeout, err))
	}
	var post hooks.Decision
	switch {
	case c == nil:
		post = st.rest(ctx, &hooks.Call{}) // no decision, and no hooks.Input to fill
	case len(e.opts.Middleware) == 0:
		post = st.rest(ctx, c) // without a handler to build
	default:
		handler := hooks.CallHandler(st.rest)
		for i := len(e.opts.Middleware) - 1; i >= 0; i-- {
			handler = e.opts.Middleware[i](handler)
		}
		post = handler(ctx, c)
	}
	switch {
	case !st.ran && post.Permission == rules.Deny:
		return st.added.onError(r.fail(StagePermission, hooks.DenyText(t.Name(), post.Reason)))
	case !st.ran:
		return r.fail(StagePermission, hooks.DenyText(t.Name(), errNoNext.Error()))
	case st.failed != nil:
		st.added.context(hooks.PostToolUseFailure, t.Name(), post.AdditionalContext)
		return st.added.onError(st.failed)
	case st.bounded.Err() != nil:
		// The call's time ran out in the hooks of its outcome.
		return r.fail(StageResult, callErrorText(ctx, st.bounded, t, e.opts.Timeout, st.bounded.Err()))
	}
	data := st.tr.Data
	var content Content
	if post.UpdatedOutput != nil {
		if s, ok := post.UpdatedOutput.(string); ok {
			content = Text(s)
		} else if err := t.ValidateOutput(post.UpdatedOutput); err != nil {
			e.opts.Logger.Warn("a PostToolUse hook's updated output was ignored", "tool", t.Name(), "tool_use_id", use.ID, "err", err.Error())
		} else {
			data, r.Data = post.UpdatedOutput, post.UpdatedOutput
		}
	}

	// 10. mapResult: empty becomes a marker.
	if content == nil {
		var err error
		content, err = t.mapResult(st.bounded, data, use.ID, cc, st.text[:0])
		if err != nil {
			r.Err = err
			return r.fail(StageResult, callErrorText(ctx, st.bounded, t, e.opts.Timeout, err))
		}
	}
	if isEmpty(content) {
		content = Text(fmt.Sprintf("(%s completed with no output)", t.Name()))
	}
	content = withNote(content, p.note)
	for _, text := range post.BlockTexts(t.Name()) {
		st.added.add(text)
	}
	st.added.context(hooks.PostToolUse, t.Name(), post.AdditionalContext)
	content = st.added.appendTo(content)
	// Redacted before it may be persisted: the model reads a persisted result too.
	content = validUTF8(redactContent(st.redact, content))
	// What the call showed is recorded before its result is persisted: a record that
	// the store could not keep fails the call (failOnStoreFault), and nothing of it is
	// shown.
	cc.commitShown()
	if st.fault.failed() != nil {
		r.Stage = StageResult // and failOnStoreFault words it
		return r
	}
	// 11. persistence: content over the tool's threshold goes to a file.
	r.Block.Content, r.PersistedPath = e.persistIfLarge(t, use.ID, content)
	r.Stage = StageDone
	return r
}

// callState is what one call keeps while it runs, in one allocation rather than one
// for each value the call's functions (its log, its progress, the rest of the
// pipeline that the hook chain calls) share with call.
type callState struct {
	r     Result
	cc    CallContext
	logMu sync.Mutex
	state State
	files sessionFiles
	// fault notes the session store being unavailable during the call.
	fault storeFault
	// ownTurn is the turn of a call made alone (Call), which has one of its own.
	ownTurn turn
	// input is the input the tool is called with, once validated.
	input map[string]any
	// bounded bounds the tool's code; it is replaced after hooks and after an ask.
	// firstBound is the first.
	bounded    *callctx.Context
	firstBound callctx.Context
	ran        bool    // the chain reached the rest of the pipeline
	failed     *Result // the call ended in an error there
	added      hookAdditions
	tr         *ToolResult
	// text holds the block of the result's default mapping.
	text [1]ContentBlock
	// redact is the engine's Redactor (nil when it has none); onProgress the
	// OnProgress hook, when there is one.
	redact     *env.Redactor
	onProgress func(ProgressEvent)
}

// Log receives the call's CallContext.Log.
func (st *callState) Log(line string) {
	line = st.redact.String(line)
	st.logMu.Lock()
	st.r.Log = append(st.r.Log, line)
	st.logMu.Unlock()
}

// progress is the call's CallContext.Progress when there is an OnProgress hook.
func (st *callState) progress(data any) {
	st.onProgress(ProgressEvent{ToolUseID: st.cc.ToolUseID, Tool: st.r.Tool.Name(), Data: st.redact.Value(data)})
}

// noProgress is the CallContext.Progress of a call no one follows.
func noProgress(any) {}

// hooked reports whether the calls served from reg under pol have hooks or
// middleware, which read the call's hooks.Input.
func (e *Engine) hooked(reg *Registry, pol *policy) bool {
	return len(e.opts.Middleware)+len(pol.hooks)+len(reg.hooks) > 0
}

// hookCopy returns the input as the hooks.Input holds it. hooks.Run gives each hook
// a copy of what it reads; only a middleware, which reads the hooks.Input itself,
// needs a copy made here, so that it cannot change what the tool is called with.
func (e *Engine) hookCopy(input map[string]any) map[string]any {
	if len(e.opts.Middleware) == 0 {
		return input
	}
	return jsonvalue.CloneObject(input)
}

// rest is the rest of the pipeline after the PreToolUse hooks, the CallHandler at
// the heart of the middleware: the input a hook updated, permissions, the call, and
// the hooks of its outcome. The call's engine, context, tool and turn are those its
// CallContext records.
func (st *callState) rest(_ context.Context, c *hooks.Call) hooks.Decision {
	cc, r := &st.cc, &st.r
	e, ctx, t, tc, reg := cc.engine, cc.nest.ctx, cc.nest.tool, cc.nest.turn, cc.registry
	st.ran = true
	d := c.Decision
	st.added.context(hooks.PreToolUse, t.Name(), d.AdditionalContext)
	if d.Permission == rules.Deny {
		st.failed = r.fail(StagePermission, hooks.DenyText(t.Name(), d.Reason))
		return hooks.Decision{}
	}
	if d.UpdatedInput != nil {
		in, denied := e.updatedInput(t, d.UpdatedInput)
		if denied != "" {
			st.failed = r.fail(StageInput, denied)
			return hooks.Decision{}
		}
		st.input, r.Input = in, in
		cc.readOnly = t.readOnlyIn(askingFor(st.bounded, cc), st.input, cc)
		if v := t.ValidateInput(st.bounded, st.input, cc); !v.Valid {
			st.failed = r.fail(StageValidate, toolUseError(v.Message))
			return hooks.Decision{}
		}
	}
	// 6. permissions.
	in, asked, denied := e.permit(ctx, st.bounded, t, st.input, cc, tc, d)
	if denied != "" {
		st.failed = r.fail(StagePermission, denied)
		return hooks.Decision{}
	}
	st.input, r.Input = in, in
	if asked {
		st.bounded.Cancel()
		st.bounded = e.bound(ctx, cc, new(callctx.Context))
	}
	// 7. call: under the deadline, with the hosts it may reach (in invoke, with
	// step 8).
	// Only hooks and middleware read what follows the call (c.In is nil without
	// them), how long it took among it: reading the clock costs a small call more
	// than it is worth to no one.
	if c.In == nil {
		st.tr, st.failed = e.invoke(ctx, st.bounded, t, st.input, cc, r)
		return hooks.Decision{}
	}
	start := time.Now()
	st.tr, st.failed = e.invoke(ctx, st.bounded, t, st.input, cc, r)
	c.In.ToolInput = e.hookCopy(st.input)
	c.In.DurationMS = time.Since(start).Milliseconds()
	// 9. PostToolUse hooks, or PostToolUseFailure when the call failed.
	if st.failed != nil {
		c.In.HookEventName, c.In.Error, c.In.IsInterrupt = hooks.PostToolUseFailure, st.failed.Block.Content.String(), ctx.Err() != nil
		return hooks.Run(st.bounded, e.hooksFor(reg, tc.policy, hooks.PostToolUseFailure, t.Name()), c.In, e.opts.Logger)
	}
	data := st.tr.Data
	if len(e.opts.Middleware) > 0 {
		data = jsonvalue.Clone(data) // as hookCopy does for the input
	}
	c.In.HookEventName, c.In.ToolResponse = hooks.PostToolUse, data
	return hooks.Run(st.bounded, e.hooksFor(reg, tc.policy, hooks.PostToolUse, t.Name()), c.In, e.opts.Logger)
}

// invoke runs the tool's call and checks its data against the outputSchema. A call
// that failed comes back as r failed; otherwise r holds what the tool returned.
func (e *Engine) invoke(ctx, bounded context.Context, t *Tool, input map[string]any, cc *CallContext, r *Result) (*ToolResult, *Result) {
	cc.network = networkOf(bounded, t, input)
	cc.writable = !cc.readOnly
	tr, err := guard(t.Name(), func() (*ToolResult, error) {
		if x := cc.crossing(); x != nil {
			return x.Call(bounded, input, cc)
		}
		return t.def.Call(bounded, input, cc)
	})
	cc.writable, cc.network = false, callNetwork{}
	if err != nil {
		r.Err = err
		if _, panicked := errors.AsType[*PanicError](err); panicked {
			// The tool's own code panicked: the machinery around it failed, in the
			// original's words for that.
			return nil, r.fail(StageCall, toolUseError(fmt.Sprintf("Error calling tool (%s): %v", t.Name(), err)))
		}
		return nil, r.fail(StageCall, callErrorText(ctx, bounded, t, e.opts.Timeout, err))
	}
	if tr == nil {
		tr = &ToolResult{}
	}
	r.Data, r.NewMessages, r.MCPMeta, r.ContextChange = tr.Data, tr.NewMessages, tr.MCPMeta, tr.ContextModifier

	// 8. output check: a tool that declares an outputSchema promises data that
	// matches it, whoever calls: the model, an MCP client (which is sent the data
	// as structuredContent) or a test.
	if err := t.ValidateOutput(tr.Data); err != nil {
		r.Err = err
		r.ContextChange = nil
		return nil, r.fail(StageResult, err.Error())
	}
	return tr, nil
}

// redactResult redacts what a call hands on (see env.Redactor). The content of a call
// that ran to the end was redacted before it was persisted; redacting it again
// could find a secret inside a marker.
func redactResult(redact *env.Redactor, r *Result) {
	if r.Stage != StageDone {
		r.Block.Content = redactContent(redact, r.Block.Content)
	}
	r.Data = redact.Value(r.Data)
	if r.NewMessages != nil {
		r.NewMessages = redact.Value(r.NewMessages).([]any)
	}
	if r.MCPMeta != nil {
		r.MCPMeta = redact.Value(r.MCPMeta).(map[string]any)
	}
	r.Err = redact.Error(r.Err)
}

// redactContent returns c with the texts of its blocks redacted (text, embedded
// resources' text, links; image and audio data are left alone); c itself when
// nothing changed.
func redactContent(r *env.Redactor, c Content) Content {
	if r == nil {
		return c
	}
	var out Content
	for i, b := range c {
		if b, changed := b.texts(r.String); changed {
			if out == nil {
				out = append(Content(nil), c...)
			}
			out[i] = b
		}
	}
	if out == nil {
		return c
	}
	return out
}

func (r *Result) fail(stage Stage, text string) *Result {
	r.Stage = stage
	r.Block.IsError = true
	r.Block.Content = Text(truncateMiddle(strings.ToValidUTF8(text, "\uFFFD"), maxErrorChars))
	return r
}

// validUTF8 replaces invalid UTF-8 in the texts of blocks with U+FFFD: the model
// APIs and MCP take JSON strings, and a tool's bytes must not decide what reaches
// them.
func validUTF8(c Content) Content {
	for i, b := range c {
		if b.Type == "text" {
			if !utf8.ValidString(b.Text) {
				c[i].Text = strings.ToValidUTF8(b.Text, "\uFFFD")
			}
			continue
		}
		c[i], _ = b.texts(func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") })
	}
	return c
}

// bound starts c, a zero Context, as ctx limited by the engine's timeout, records the
// deadline in cc, and returns c. It is the one context of the call's code: the
// memory watchdog stops the call through it too (bindings.Watchdog).
func (e *Engine) bound(ctx context.Context, cc *CallContext, c *callctx.Context) *callctx.Context {
	c.Start(ctx, e.opts.Timeout)
	cc.Deadline, _ = c.Deadline()
	return c
}

// permit runs the permission step (see permissions.go) and returns the input to call
// with, whether a person was asked, or the text of a deny. The tool's code runs under
// bounded; the ask itself only under ctx.
func (e *Engine) permit(ctx, bounded context.Context, t *Tool, input map[string]any, cc *CallContext, tc *turn, hook hooks.Decision) (_ map[string]any, asked bool, denied string) {
	d := e.decide(bounded, t, input, cc, tc, hook)
	switch d.behavior {
	case rules.Allow:
		return d.input, false, ""
	case rules.Deny:
		if d.message == "" {
			d.message = fmt.Sprintf("Permission to use %s has been denied.", t.Name())
		}
		return nil, false, d.message
	}
	switch tc.mode {
	case rules.ModeDontAsk:
		msg := fmt.Sprintf("Permission to use %s was not granted: the session is in dontAsk mode, which refuses whatever would need approval.", t.Name())
		if d.protected {
			msg += " " + d.message
		}
		return nil, false, msg
	}
	var suggestions []string
	if !d.protected {
		// No rule allows a write to a protected path: none is offered.
		suggestions = rules.Suggest(t.Name(), e.ruleTarget(bounded, t, d.input, tc.cwd))
	}
	canUseTool := e.callbacks(ctx).CanUseTool
	if canUseTool == nil {
		if d.protected {
			return nil, false, fmt.Sprintf("Permission to use %s was not granted: the call needs a person's approval and no one can be asked in this session. %s", t.Name(), d.message)
		}
		if d.byRule {
			// An ask rule beats allow rules: only a person can let the call through.
			return nil, false, e.unansweredText(t, d.message, nil)
		}
		return nil, false, e.unansweredText(t, "", suggestions)
	}
	msg := d.message
	if note := networkNote(bounded, t, d.input); note != "" {
		msg = strings.TrimSpace(msg + " " + note)
	}
	req := PermissionRequest{
		Tool: t, ToolUseID: cc.ToolUseID, Input: d.input, Message: e.opts.Env.Redactor().String(msg),
		Description: t.Description(bounded, d.input),
		Suggestions: suggestions,
		Protected:   d.protected,
	}
	ans, err := canUseTool(ctx, req)
	if err != nil {
		return nil, true, fmt.Sprintf("Permission to use %s was not granted: %v", t.Name(), err)
	}
	if ans.Abort && tc.abort != nil {
		defer tc.abort()
	}
	if ans.Behavior != rules.Allow {
		if ans.Message != "" {
			return nil, true, "The user doesn't want to proceed with this tool use. The tool use was rejected. The user said:\n" + ans.Message
		}
		if ans.Abort {
			return nil, true, rejectMessage
		}
		return nil, true, fmt.Sprintf("Permission to use %s has been denied.", t.Name())
	}
	if len(ans.AddRules) > 0 && !d.protected {
		tc.session.addRules(ctx, ans.AddRules)
	}
	if ans.UpdatedInput != nil {
		in, denied := e.updatedInput(t, ans.UpdatedInput)
		return in, true, denied
	}
	return d.input, true, ""
}

// unansweredText is the refusal of a call that needed approval when no one could be
// asked: the ask rule that made it need approval (why, when one did), the rules that
// would allow it, and the host's hint on how to give them (Options.ApprovalHint).
func (e *Engine) unansweredText(t *Tool, why string, allowing []string) string {
	msg := fmt.Sprintf("Permission to use %s was not granted: the call needs approval and no one can be asked in this session.", t.Name())
	if why != "" {
		msg += " " + why
	}
	if len(allowing) > 0 {
		msg += " A rule that would allow it: " + strings.Join(allowing, ", ") + "."
	}
	if e.opts.ApprovalHint != nil {
		if hint := e.opts.ApprovalHint(allowing); hint != "" {
			msg += " " + hint
		}
	}
	return msg
}

// updatedInput validates an input that a permission decision substituted, as the
// model's own input was: the tool must never see input its schema rejects.
func (e *Engine) updatedInput(t *Tool, in map[string]any) (map[string]any, string) {
	in, err := t.Schema().Prepare(in)
	if err != nil {
		return nil, toolUseError(inputValidationText(t.Name(), "", err))
	}
	return in, ""
}

// decodeInput parses a tool_use input: a JSON object (empty means {}) nested at most
// maxDepth deep (the engine's limit, or the tool's code's when lower), so that it fails
// here as invalid input rather than later inside the call. Object keys found in keys
// (the schema's property names) are not copied.
func decodeInput(raw []byte, maxDepth int, keys map[string]string) (map[string]any, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return map[string]any{}, nil
	}
	v, d, err := jsonvalue.DecodeKeys(raw, keys)
	if err != nil {
		return nil, &schema.ValidationError{Problems: []string{"The input is not valid JSON: " + err.Error()}}
	}
	if d > maxDepth {
		return nil, &schema.ValidationError{Problems: []string{fmt.Sprintf("The input nests %d levels deep; at most %d are allowed", d, maxDepth)}}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &schema.ValidationError{Problems: []string{"The input must be a JSON object"}}
	}
	return obj, nil
}

// inputValidationText words the schema's problems with a tool's input, after what
// the tool says to steer the model (steer), when it says something.
func inputValidationText(name, steer string, err error) string {
	var ve *schema.ValidationError
	if !errors.As(err, &ve) {
		ve = &schema.ValidationError{Problems: []string{err.Error()}}
	}
	// The original says "issue" for one problem and "issues" for several.
	noun := "issues"
	if len(ve.Problems) == 1 {
		noun = "issue"
	}
	if steer != "" {
		steer += "\n\n"
	}
	return "InputValidationError: " + steer + name + " failed due to the following " + noun + ":\n" + strings.Join(ve.Problems, "\n")
}

// undiscoveredHint is added to the input error of a deferred tool the model has not
// discovered: it is calling the tool without having seen its schema.
func undiscoveredHint(name string) string {
	return "This tool's schema was not sent to you, so its parameters could not be known. " +
		"Call ToolSearch with query \"select:" + name + "\" to load it first, then retry this call."
}

func toolUseError(msg string) string { return "<tool_use_error>" + msg + "</tool_use_error>" }

// callErrorText words an error from call or mapResult: the engine's own words for a
// timeout or a cancellation, otherwise the error's text (for Lua, "file:line: message").
func callErrorText(parent, bounded context.Context, t *Tool, timeout time.Duration, err error) string {
	switch {
	case storeCause(parent) != nil:
		return storeUnavailableText(t.Name())
	case parent.Err() != nil:
		if text, ok := causeText(parent); ok {
			return text
		}
		return interruptMessage
	case errors.Is(bounded.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("%s timed out after %s and was stopped.", t.Name(), timeout)
	}
	msg := modelText(err)
	if strings.TrimSpace(msg) == "" {
		msg = "Command failed with no output"
	}
	return msg
}

func isEmpty(c Content) bool {
	for _, b := range c {
		if b.Type != "text" || strings.TrimSpace(b.Text) != "" {
			return false
		}
	}
	return true
}

// withNote is content ending with note after a blank line, when content is one text
// (a result of other blocks is left as it is, as the original leaves one that is not
// a string); content itself when note is "".
func withNote(content Content, note string) Content {
	if note == "" || len(content) != 1 || content[0].Type != "text" {
		return content
	}
	b := content[0]
	b.Text += "\n\n" + note
	return Content{b}
}

// truncateMiddle keeps the first and last halves of a text over max characters.
func truncateMiddle(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	half := max / 2
	return string(r[:half]) + fmt.Sprintf("\n\n... [%d characters truncated] ...\n\n", len(r)-2*half) + string(r[len(r)-half:])
}
