package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/engine/netpolicy"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/schema"
	"github.com/luatool/luatool/internal/jsonvalue"
	"github.com/luatool/luatool/internal/nameshape"
)

// The defaults table. Each member a ToolDef leaves out gets the value in "absent";
// when a member's function fails (returns an error, or in Lua raises one or returns
// the wrong type) the tool gets the value in "on error". Every answer about safety
// fails closed. The table is the rendering of the contract, Members() (members.go),
// which loaders check tool files against; a test keeps the two equal.
//
//	member                       absent                                   on error
//	name                         load error                               load error
//	inputSchema                  load error                               load error
//	prompt                       load error                               call error
//	call                         load error                               is_error result
//	aliases                      none                                     load error
//	searchHint                   none                                     load error
//	shouldDefer                  false                                    load error
//	alwaysLoad                   false                                    load error
//	isIdempotent                 false (a hint for MCP clients only)      load error
//	maxResultSizeChars           50000 (effective min(x, 50000))          load error
//	outputSchema                 none                                     load error
//	network                      none (no host)                           load error
//	description                  the tool name                            the tool name
//	userFacingName               the tool name                            the tool name
//	isEnabled                    true                                     false (hidden)
//	isReadOnly                   false                                    false
//	isConcurrencySafe            false                                    false
//	isDestructive                false                                    true
//	isOpenWorld                  false                                    true
//	interruptBehavior            "block"                                  "block"
//	coerceInput                  the input as given                       the input as given
//	validationErrorSteer         none                                     none
//	validateInput                valid                                    invalid, with the error text
//	checkPermissions             allow if isReadOnly(input), else ask     deny
//	getPath                      none                                     rules fail closed
//	ruleContent                  none                                     rules fail closed
//	toAutoClassifierInput        ""                                       ""
//	mapResult                    strings as is, other data as JSON        is_error result
//	renderToolUseMessage         plain default rendering                  default rendering
//	renderToolResultMessage      plain default rendering                  default rendering
//	renderToolUseProgressMessage plain default rendering                  default rendering
//	renderToolUseRejectedMessage plain default rendering                  default rendering
//	renderToolUseErrorMessage    plain default rendering                  default rendering
//
// Deliberate deviation from the original: its checkPermissions default is allow. Ours
// asks unless the tool is read-only for the input, so a tool nobody thought about
// needs permission.
const (
	// DefaultMaxResultSizeChars is the persistence threshold and the cap on any tool's own.
	DefaultMaxResultSizeChars = 50000
	// defaultInterruptBehavior is what a tool does when the user sends a new message
	// while it runs: keep running.
	defaultInterruptBehavior = "block"
)

// namePattern is the rule for tool names (see nameshape.ToolName). The Anthropic
// and OpenAI APIs are narrower (no dots, at most 64): see APIName.
var namePattern = nameshape.ToolName()

// apiNamePattern is the tool-name rule of the Anthropic and OpenAI APIs.
var apiNamePattern = nameshape.MustParse(`^[A-Za-z0-9_-]{1,64}$`)

// ValidName reports whether name may be a tool name.
func ValidName(name string) bool { return namePattern.MatchString(name) }

func nameError(name string) error {
	if ValidName(name) {
		return nil
	}
	return fmt.Errorf("name %q must match %s (a letter, then letters, digits, _, - or ., at most 128 in all)", name, namePattern)
}

// APIName returns the name under which a tool is offered to the Anthropic and OpenAI
// APIs, whose rule is ^[a-zA-Z0-9_-]{1,64}$: the name itself, or with its dots made
// underscores. A name longer than 64 characters has no such form, and the error says
// so. Registry.Lookup finds a tool under its API name.
func APIName(name string) (string, error) {
	api := strings.ReplaceAll(name, ".", "_")
	if !apiNamePattern.MatchString(api) {
		return "", fmt.Errorf("tool name %q has %d characters; the Anthropic and OpenAI APIs allow at most 64 (%s)", name, len(name), apiNamePattern)
	}
	return api, nil
}

// A Tool is a ToolDef with the defaults merged in and its schema compiled. Its methods
// never fail where the defaults table gives an answer; they take the fail-closed one.
// A Tool is immutable and safe for concurrent use.
type Tool struct {
	def    ToolDef
	schema *schema.Schema
	output *schema.Schema
	// network is def.Network parsed (see checkNetwork).
	network netpolicy.List
	// log receives, once per member, the failures of members that have a safe answer
	// (see failed). Nil discards them. Set by the engine before the tool is offered.
	log *slog.Logger
	// bound limits each question member (see ask); Build sets defaultMemberTimeout and
	// the engine its Options.MemberTimeout.
	bound time.Duration
	// redact keeps the secrets of the engine's Env out of the texts the tool gives
	// people and the model (prompt, description, renderings). Nil redacts nothing.
	redact *env.Redactor
	// reported holds the members whose failure was logged: once per tool version
	// is enough to tell the author, and a broken member may be asked on every call.
	reported sync.Map
	// diags are the warnings and notices loading the tool's file gave (see
	// loadTool): an event announcing the tool carries them.
	diags []diag.Diagnostic
}

// Build checks def and merges the defaults. It fails when a required member is
// missing, the name is invalid, or a schema does not compile: the error joins one
// *diag.MemberError for each problem.
func Build(def ToolDef) (*Tool, error) {
	switch {
	case def.Hook != nil:
		return buildHook(def)
	case def.Feature != nil:
		return buildFeature(def)
	}
	var errs []error
	problem := func(member string, err error) { errs = append(errs, &diag.MemberError{Member: member, Err: err}) }
	if def.Name == "" {
		problem("name", fmt.Errorf("required member name is missing: it must match %s (a letter, then letters, digits, _, - or ., at most 128 in all)", namePattern))
	} else if err := nameError(def.Name); err != nil {
		problem("name", err)
	}
	seenAlias := map[string]bool{def.Name: true}
	for _, a := range def.Aliases {
		switch {
		case !ValidName(a):
			problem("aliases", fmt.Errorf("alias %q must match %s", a, namePattern))
		case seenAlias[a]:
			problem("aliases", fmt.Errorf("alias %q repeats the name or another alias", a))
		}
		seenAlias[a] = true
	}
	if def.Prompt == nil {
		problem("prompt", errors.New("required member prompt is missing: the description the model reads"))
	}
	if def.Call == nil {
		problem("call", errors.New("required member call is missing"))
	}
	if def.MaxResultSizeChars < 0 || math.IsNaN(def.MaxResultSizeChars) {
		problem("maxResultSizeChars", fmt.Errorf("maxResultSizeChars must be positive, or infinite for never (0 means the default), got %v", def.MaxResultSizeChars))
	}
	t := &Tool{def: def, bound: defaultMemberTimeout}
	if def.InputSchema == nil {
		problem("inputSchema", errors.New(`required member inputSchema is missing: a JSON Schema with type "object"`))
	} else if s, err := schema.CompileObject(def.InputSchema); err != nil {
		problem("inputSchema", fmt.Errorf("inputSchema: %w", err))
	} else {
		t.schema = s
	}
	if def.OutputSchema != nil {
		s, err := schema.Compile(def.OutputSchema)
		if err != nil {
			problem("outputSchema", fmt.Errorf("outputSchema: %w", err))
		}
		t.output = s
	}
	if def.Network != nil {
		if err := t.checkNetwork(); err != nil {
			problem("network", err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// Name returns the tool's name.
func (t *Tool) Name() string { return t.def.Name }

// Aliases returns the other names lookup accepts. The slice must not be modified.
func (t *Tool) Aliases() []string { return t.def.Aliases }

// Source says where the tool was defined.
func (t *Tool) Source() string { return t.def.Source }

// SearchHint returns the ToolSearch phrase, or "".
func (t *Tool) SearchHint() string { return t.def.SearchHint }

// Deferred reports whether the tool's schema is withheld until discovery.
func (t *Tool) Deferred() bool { return t.def.ShouldDefer && !t.def.AlwaysLoad }

// InputSchema returns the input schema as declared. It must not be modified.
func (t *Tool) InputSchema() map[string]any { return t.def.InputSchema }

// OutputSchema returns the output schema as declared, or nil. It must not be modified.
func (t *Tool) OutputSchema() map[string]any { return t.def.OutputSchema }

// Hints returns what the tool declares about every call, whatever its input.
func (t *Tool) Hints() Hints { return t.def.Hints }

// Schema returns the compiled input schema.
func (t *Tool) Schema() *schema.Schema { return t.schema }

// MaxResultSizeChars returns the persistence threshold: min(declared, 50000), the
// default when undeclared, or +Inf for a tool that is never persisted.
func (t *Tool) MaxResultSizeChars() float64 {
	switch m := t.def.MaxResultSizeChars; {
	case math.IsInf(m, 1):
		return m
	case m == 0:
		return DefaultMaxResultSizeChars
	default:
		return math.Min(m, DefaultMaxResultSizeChars)
	}
}

// Prompt returns the model-facing description. An error here is the only error of a
// question member: there is no safe substitute for a description.
func (t *Tool) Prompt(ctx context.Context, opts PromptOptions) (string, error) {
	s, err := askMember(t, ctx, func(ctx context.Context) (string, error) { return t.def.Prompt(ctx, opts) })
	return t.redact.String(s), t.redact.Error(err)
}

// Description returns the per-call human summary, or the name.
func (t *Tool) Description(ctx context.Context, input map[string]any) string {
	return t.redact.String(t.stringOr("description", t.def.Description, ctx, input, t.def.Name))
}

// UserFacingName returns the label shown to people, or the name.
func (t *Tool) UserFacingName(ctx context.Context, input map[string]any) string {
	return t.redact.String(t.stringOr("userFacingName", t.def.UserFacingName, ctx, input, t.def.Name))
}

// IsEnabled reports whether the tool is offered at all; false on error.
func (t *Tool) IsEnabled(ctx context.Context) bool {
	ok, err := t.enabled(ctx)
	if err != nil {
		t.failed("isEnabled", err, "the tool is hidden")
	}
	return err == nil && ok
}

func (t *Tool) enabled(ctx context.Context) (bool, error) {
	if t.def.IsEnabled == nil {
		return true, nil
	}
	return askMember(t, ctx, t.def.IsEnabled)
}

// IsReadOnly reports whether the call changes nothing; the hint when there is no
// function, false when absent or on error.
func (t *Tool) IsReadOnly(ctx context.Context, input map[string]any) bool {
	return t.boolOr("isReadOnly", t.def.IsReadOnly, ctx, input, hint(t.def.Hints.ReadOnly), false)
}

// readOnlyIn is IsReadOnly asked within the call whose CallContext is cc: through
// its Crossing, when it has one.
func (t *Tool) readOnlyIn(ctx context.Context, input map[string]any, cc *CallContext) bool {
	x := cc.crossing()
	if x == nil || t.def.IsReadOnly == nil {
		return t.IsReadOnly(ctx, input)
	}
	return t.boolOr("isReadOnly", x.IsReadOnly, ctx, input, false, false)
}

// IsConcurrencySafe reports whether the call may run beside others; the hint when
// there is no function, false when absent or on error.
func (t *Tool) IsConcurrencySafe(ctx context.Context, input map[string]any) bool {
	return t.boolOr("isConcurrencySafe", t.def.IsConcurrencySafe, ctx, input, hint(t.def.Hints.ConcurrencySafe), false)
}

// IsDestructive reports whether the call may destroy data; the hint when there is no
// function, false when absent, true on error.
func (t *Tool) IsDestructive(ctx context.Context, input map[string]any) bool {
	return t.boolOr("isDestructive", t.def.IsDestructive, ctx, input, hint(t.def.Hints.Destructive), true)
}

// IsOpenWorld reports whether the call reaches outside the host; the hint when there
// is no function, false when absent, true on error.
func (t *Tool) IsOpenWorld(ctx context.Context, input map[string]any) bool {
	return t.boolOr("isOpenWorld", t.def.IsOpenWorld, ctx, input, hint(t.def.Hints.OpenWorld), true)
}

// hint is a declared hint's value; false when undeclared.
func hint(b *bool) bool { return b != nil && *b }

// InterruptBehavior returns "cancel" or "block"; "block" when absent, on error or for
// any other answer.
func (t *Tool) InterruptBehavior(ctx context.Context) string {
	if t.def.InterruptBehavior == nil {
		return defaultInterruptBehavior
	}
	b, err := askMember(t, ctx, t.def.InterruptBehavior)
	switch {
	case err != nil:
		t.failed("interruptBehavior", err, `it counts as "block"`)
	case b == "cancel":
		return b
	case b != defaultInterruptBehavior:
		t.failed("interruptBehavior", fmt.Errorf("it returned %q, not \"cancel\" or \"block\"", b), `it counts as "block"`)
	}
	return defaultInterruptBehavior
}

// CoerceInput returns the input the schema validates in place of input, an input it
// refused as sent: the one the tool's coerceInput mends, or input itself when the tool has none, it returns nil or
// it fails (the schema then judges the input as the model sent it); and the note a
// successful result of the mended input ends with ("" for none).
func (t *Tool) CoerceInput(ctx context.Context, input map[string]any) (map[string]any, string) {
	if t.def.CoerceInput == nil {
		return input, ""
	}
	m, err := askMember(t, ctx, func(ctx context.Context) (mending, error) {
		mended, note, err := t.def.CoerceInput(ctx, input)
		return mending{mended, note}, err
	})
	if err != nil {
		t.failed("coerceInput", err, "the input is validated as given")
		return input, ""
	}
	if m.input == nil {
		return input, ""
	}
	return m.input, m.note
}

// mending is what a coerceInput answers, as one value for askMember.
type mending struct {
	input map[string]any
	note  string
}

// ValidationErrorSteer returns what the tool says before the schema's problems with
// input, the input as given; "" for nothing.
func (t *Tool) ValidationErrorSteer(ctx context.Context, input map[string]any) string {
	return t.stringOr("validationErrorSteer", t.def.ValidationErrorSteer, ctx, input, "")
}

// ValidateInput runs the tool's own input check; valid when absent, invalid with the
// error text on error.
func (t *Tool) ValidateInput(ctx context.Context, input map[string]any, cc *CallContext) ValidationResult {
	if t.def.ValidateInput == nil {
		return ValidationResult{Valid: true}
	}
	r, err := guard(t.def.Name, func() (ValidationResult, error) {
		if x := cc.crossing(); x != nil {
			return x.ValidateInput(ctx, input, cc)
		}
		return t.def.ValidateInput(ctx, input, cc)
	})
	if err != nil {
		t.failed("validateInput", err, "the input is refused")
		return ValidationResult{Message: fmt.Sprintf("validateInput failed: %s", modelText(err))}
	}
	if !r.Valid && r.Message == "" {
		r.Message = t.def.Name + " rejected the input"
	}
	return r
}

// CheckPermissions runs the tool's own permission step. When absent: allow if the
// tool is read-only for the input, otherwise ask. On error or an unknown behaviour:
// deny. A result with a SafetyCheck reason is an ask, whatever its behaviour but deny.
func (t *Tool) CheckPermissions(ctx context.Context, input map[string]any, cc *CallContext) PermissionResult {
	if t.def.CheckPermissions == nil {
		readOnly := cc != nil && cc.readOnlyKnown && cc.readOnly
		if cc == nil || !cc.readOnlyKnown {
			readOnly = t.readOnlyIn(askingFor(ctx, cc), input, cc)
		}
		if readOnly {
			return PermissionResult{Behavior: rules.Allow}
		}
		return PermissionResult{Behavior: rules.Ask, Message: fmt.Sprintf("%s wants to make changes and needs your permission.", t.def.Name)}
	}
	r, err := guard(t.def.Name, func() (PermissionResult, error) {
		if x := cc.crossing(); x != nil {
			return x.CheckPermissions(ctx, input, cc)
		}
		return t.def.CheckPermissions(ctx, input, cc)
	})
	if err != nil {
		t.failed("checkPermissions", err, "the call is denied")
		return PermissionResult{Behavior: rules.Deny, Message: fmt.Sprintf("Permission to use %s has been denied: its permission check failed: %s", t.def.Name, modelText(err))}
	}
	switch r.Behavior {
	case rules.Allow, rules.Ask, rules.Passthrough:
		if r.SafetyCheck != "" {
			// A tool that found something protected cannot also allow the call.
			r.Behavior = rules.Ask
		}
		return r
	case rules.Deny:
		if r.Message == "" {
			r.Message = fmt.Sprintf("Permission to use %s has been denied.", t.def.Name)
		}
		return r
	default:
		return PermissionResult{Behavior: rules.Deny, Message: fmt.Sprintf("Permission to use %s has been denied: its permission check returned %q, not allow, deny, ask or passthrough", t.def.Name, r.Behavior)}
	}
}

// GetPath returns the path the call touches, for path rules. ok is false when the tool
// has none or the function failed; rules must then fail closed.
func (t *Tool) GetPath(ctx context.Context, input map[string]any) (path string, ok bool) {
	return t.optionalString("getPath", t.def.GetPath, ctx, input)
}

// RuleContent returns what content rules match, e.g. a shell command, in parts (the
// commands of a compound command: a deny matches any part, an allow must match every
// part). ok as for GetPath.
func (t *Tool) RuleContent(ctx context.Context, input map[string]any) (parts []string, ok bool) {
	if t.def.RuleContent == nil {
		return nil, false
	}
	parts, err := askMember(t, ctx, func(ctx context.Context) ([]string, error) { return t.def.RuleContent(ctx, input) })
	if err != nil {
		t.failed("ruleContent", err, "deny and ask rules match the call and allow rules do not")
	}
	return parts, err == nil
}

// ToAutoClassifierInput returns the text a host's auto-approval classifier may read;
// "" (never auto-approved) when absent or on error.
func (t *Tool) ToAutoClassifierInput(ctx context.Context, input map[string]any) string {
	return t.stringOr("toAutoClassifierInput", t.def.ToAutoClassifierInput, ctx, input, "")
}

// ValidateOutput checks data against the tool's outputSchema; nil when the tool
// declares none. The pipeline calls it for every call that ran, so that every caller
// gets what the schema promises; the error is an *OutputError.
func (t *Tool) ValidateOutput(data any) error {
	if t.output == nil {
		return nil
	}
	if problems := t.output.DataProblems(data); len(problems) > 0 {
		return &OutputError{Tool: t.def.Name, Problems: problems}
	}
	return nil
}

// An OutputError is data a tool returned that does not match its outputSchema: the
// tool broke its own promise, so the call fails.
type OutputError struct {
	// Tool is the tool's name.
	Tool string
	// Problems say what is wrong, one a line, by location in the data.
	Problems []string
}

func (e *OutputError) Error() string {
	return e.Tool + " returned data that does not match its outputSchema:\n" + strings.Join(e.Problems, "\n")
}

// MapResult turns data into tool_result content: by the tool's mapResult when it has
// one, otherwise a string as is and anything else as JSON.
func (t *Tool) MapResult(ctx context.Context, data any, toolUseID string) (Content, error) {
	return t.mapResult(ctx, data, toolUseID, nil, nil)
}

// mapResult is MapResult within the call whose CallContext is cc (nil outside one),
// through its Crossing when it has one, the default mapping appending its block to
// dst: the pipeline gives it room held in the call's state.
func (t *Tool) mapResult(ctx context.Context, data any, toolUseID string, cc *CallContext, dst Content) (Content, error) {
	if t.def.MapResult != nil {
		return guard(t.def.Name, func() (Content, error) {
			if x := cc.crossing(); x != nil {
				return x.MapResult(ctx, data, toolUseID)
			}
			return t.def.MapResult(ctx, data, toolUseID)
		})
	}
	return defaultMapResult(data, dst)
}

// defaultMapResult is the mapping for tools without mapResult: nil is empty, a string
// is itself, anything else is its JSON encoding. Its text block is appended to dst.
func defaultMapResult(data any, dst Content) (Content, error) {
	switch d := data.(type) {
	case nil:
		return dst, nil
	case string:
		return append(dst, ContentBlock{Type: "text", Text: d}), nil
	}
	b, err := jsonvalue.Encode(data)
	if err != nil {
		return nil, fmt.Errorf("result data is not JSON: %w", err)
	}
	return append(dst, ContentBlock{Type: "text", Text: string(b)}), nil
}

// RenderToolUse renders a tool use for a person: the tool's renderToolUseMessage, or
// the user-facing name with the input's fields.
func (t *Tool) RenderToolUse(ctx context.Context, input map[string]any) string {
	if s, ok := t.optionalString("renderToolUseMessage", t.def.RenderToolUseMessage, ctx, input); ok {
		return t.redact.String(s)
	}
	return t.redact.String(t.UserFacingName(ctx, input) + "(" + summarizeInput(input) + ")")
}

// RenderResult renders a result's data for a person, or "" to show the content.
func (t *Tool) RenderResult(ctx context.Context, data any) string {
	if t.def.RenderToolResultMessage == nil {
		return ""
	}
	s, err := askMember(t, ctx, func(ctx context.Context) (string, error) { return t.def.RenderToolResultMessage(ctx, data) })
	if err != nil {
		t.failed("renderToolResultMessage", err, "the content is shown instead")
		return ""
	}
	return t.redact.String(s)
}

// RenderProgress renders one progress event for a person.
func (t *Tool) RenderProgress(ctx context.Context, progress any) string {
	if t.def.RenderToolUseProgressMessage != nil {
		s, err := askMember(t, ctx, func(ctx context.Context) (string, error) { return t.def.RenderToolUseProgressMessage(ctx, progress) })
		if err == nil {
			return t.redact.String(s)
		}
		t.failed("renderToolUseProgressMessage", err, "the default rendering is used")
	}
	return t.redact.String(defaultProgressText(progress))
}

// defaultProgressText renders progress data for a person when the tool has no
// renderToolUseProgressMessage: a string as it is, a table's "message" string field,
// and otherwise a step counter from its "progress" and "total" numbers, or "working".
// Raw JSON is never shown: it is meant for programs, not people.
func defaultProgressText(progress any) string {
	switch p := progress.(type) {
	case string:
		return p
	case map[string]any:
		if msg, ok := p["message"].(string); ok && msg != "" {
			return msg
		}
		done, okDone := jsonvalue.Number(p["progress"])
		total, okTotal := jsonvalue.Number(p["total"])
		switch {
		case okDone && okTotal:
			return fmt.Sprintf("%s of %s", formatCount(done), formatCount(total))
		case okDone:
			return formatCount(done) + " done"
		}
	}
	return "working"
}

func formatCount(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// RenderRejected renders a refused tool use for a person.
func (t *Tool) RenderRejected(ctx context.Context, input map[string]any) string {
	if s, ok := t.optionalString("renderToolUseRejectedMessage", t.def.RenderToolUseRejectedMessage, ctx, input); ok {
		return t.redact.String(s)
	}
	return t.UserFacingName(ctx, input) + " was not allowed to run"
}

// RenderError renders a failed tool use for a person.
func (t *Tool) RenderError(ctx context.Context, message string) string {
	if t.def.RenderToolUseErrorMessage != nil {
		s, err := askMember(t, ctx, func(ctx context.Context) (string, error) { return t.def.RenderToolUseErrorMessage(ctx, message) })
		if err == nil {
			return t.redact.String(s)
		}
		t.failed("renderToolUseErrorMessage", err, "the default rendering is used")
	}
	return t.redact.String("Error: " + message)
}

func (t *Tool) close() {
	if t.def.Close != nil {
		t.def.Close()
	}
}

// failed records that a member with a safe answer failed: the answer stands, and
// the host's log is told once per member of this tool version which member failed,
// why, and what was answered instead. A member stopped because the caller gave up
// (its context was cancelled) has not failed, and one of the wrong kind was reported
// when the tool loaded (diag.ErrReported).
func (t *Tool) failed(member string, err error, answer string) {
	if t.log == nil || errors.Is(err, context.Canceled) || errors.Is(err, diag.ErrReported) {
		return
	}
	if _, done := t.reported.LoadOrStore(member, true); done {
		return
	}
	pos := errorPosition(err)
	if pos.File == "" {
		pos.File = t.def.Source
	}
	t.log.Warn(fmt.Sprintf("%s: %s failed, so %s: %v", t.def.Name, member, answer, err),
		"tool", t.def.Name, "member", member, "file", pos.File, "line", pos.Line)
}

func (t *Tool) boolOr(member string, fn func(context.Context, map[string]any) (bool, error), ctx context.Context, input map[string]any, absent, onErr bool) bool {
	if fn == nil {
		return absent
	}
	v, err := askMember(t, ctx, func(ctx context.Context) (bool, error) { return fn(ctx, input) })
	if err != nil {
		t.failed(member, err, fmt.Sprintf("it counts as %v (the safe answer)", onErr))
		return onErr
	}
	return v
}

func (t *Tool) stringOr(member string, fn func(context.Context, map[string]any) (string, error), ctx context.Context, input map[string]any, fallback string) string {
	if s, ok := t.optionalString(member, fn, ctx, input); ok {
		return s
	}
	return fallback
}

func (t *Tool) optionalString(member string, fn func(context.Context, map[string]any) (string, error), ctx context.Context, input map[string]any) (string, bool) {
	if fn == nil {
		return "", false
	}
	s, err := askMember(t, ctx, func(ctx context.Context) (string, error) { return fn(ctx, input) })
	if err != nil {
		t.failed(member, err, "the default is used")
		return "", false
	}
	return s, true
}

// summarizeInput renders an input as `key: value` pairs in key order, each value
// shortened, for one-line displays.
func summarizeInput(input map[string]any) string {
	keys := sortedKeys(input)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		var v string
		if s, ok := input[k].(string); ok {
			v = fmt.Sprintf("%q", s)
		} else {
			b, _ := jsonvalue.Encode(input[k])
			v = string(b)
		}
		if r := []rune(v); len(r) > 60 {
			v = string(r[:57]) + "..."
		}
		parts = append(parts, k+": "+v)
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// A PanicError is a panic in a tool's own Go code (a member function of a Go-native
// tool): that member's failure, with the Go stack for the host's log, never a panic
// of the host. A panic in the engine's own code is not caught: it is a bug of the
// engine, and goes on up, as in text/template.
type PanicError struct {
	// Tool is the tool whose code panicked.
	Tool string
	// Value is what was passed to panic.
	Value any
	// Stack is the Go stack of the panic.
	Stack string
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// askMember calls a question member of t's (one with a safe answer, or prompt) under t's
// member bound, wherever it is asked from: a listing, a describe, a rule match or a
// call. A member that runs past the bound fails with an error that says so, and its
// caller falls back to the safe answer. Lua members stop at the bound; a Go member
// must watch its context.
func askMember[T any](t *Tool, ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	bounded, cancel := context.WithTimeout(ctx, t.bound)
	defer cancel()
	v, err := guard(t.def.Name, func() (T, error) { return fn(bounded) })
	if err != nil && ctx.Err() == nil && errors.Is(bounded.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s: %w", t.bound, err)
	}
	return v, err
}

// guard calls fn, a member of tool's, and turns a panic in it into a *PanicError.
func guard[T any](tool string, fn func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, err = zero, &PanicError{Tool: tool, Value: p, Stack: string(debug.Stack())}
		}
	}()
	return fn()
}
