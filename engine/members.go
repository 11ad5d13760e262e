package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// A MemberKind is what a member of the Tool contract may be in a tool file: a plain
// value of one kind, a function computing it, or either.
type MemberKind struct {
	// Value is the kind of plain value the member may be: "string", "boolean",
	// "number", "strings" (a list of strings) or "schema" (a table with string keys, a
	// JSON Schema); "" when the member may only be a function.
	Value string
	// Values, when set, are the only strings a "string" member may be.
	Values []string
	// Func is set when the member may be a function (of the input, for most).
	Func bool
}

// The kinds of the contract's members.
var (
	kindString    = MemberKind{Value: "string"}
	kindBool      = MemberKind{Value: "boolean"}
	kindNumber    = MemberKind{Value: "number"}
	kindStrings   = MemberKind{Value: "strings"}
	kindSchema    = MemberKind{Value: "schema"}
	kindFunc      = MemberKind{Func: true}
	kindStringFn  = MemberKind{Value: "string", Func: true}
	kindBoolFn    = MemberKind{Value: "boolean", Func: true}
	kindInterrupt = MemberKind{Value: "string", Values: []string{"cancel", "block"}, Func: true}
)

// String says what the kind is, as messages say it: "a boolean or a function".
func (k MemberKind) String() string {
	var value string
	switch {
	case len(k.Values) > 0:
		quoted := make([]string, len(k.Values))
		for i, v := range k.Values {
			quoted[i] = fmt.Sprintf("%q", v)
		}
		value = strings.Join(quoted, ", ")
	case k.Value == "strings":
		value = "a list of strings"
	case k.Value == "schema":
		value = "a table"
	case k.Value != "":
		value = "a " + k.Value
	}
	switch {
	case value == "" && k.Func:
		return "a function"
	case k.Func:
		return value + " or a function"
	case value == "":
		return "nothing"
	}
	return value
}

// A Member is one member of the Tool contract: its name as tool files spell it,
// what it may be, how a function of it is called and read, what a tool gets when it
// leaves the member out or the member fails, and where it goes in a ToolDef. The
// table of Members is the one description of the contract: the Lua loader converts
// tool files by it, luatool check asks the members it marks, list and describe show
// its flags and defaults, the type definitions follow it, and the defaults table at
// the top of defaults.go is its rendering (tests keep them equal).
type Member struct {
	// Name is the member's name in a tool file: "isReadOnly".
	Name string
	// Kind is what the member may be.
	Kind MemberKind
	// Params are what a function of the member is called with, named as the type
	// definitions (luatool.d.lua) name them: "input" (the call's input, after the
	// schema), "ctx" (the call's context), "ctx?" (the context of the call the engine
	// asks about, when it asks about one), "opts", "data", "progress", "message",
	// "toolUseId". Empty for a member called with nothing, or that is never a function.
	Params []string
	// Answer is what a function of the member returns, as loaders read it: "string",
	// "boolean", "strings" (a string or a list of strings), "input" (an input table,
	// or nil for none, and an optional note: coerceInput's), "validation" (a
	// ValidationResult), "permission" (a PermissionResult), "result" (a ToolResult) or
	// "content" (Content); "" for a member that is never a function.
	Answer string
	// Absent is what a tool that leaves the member out gets, in words.
	Absent string
	// OnError is what a tool gets when the member fails: a function that raises an
	// error or returns the wrong type, or, for a member read once at load, a value
	// that is wrong.
	OnError string
	// FailsClosed is set for members asked while the tool serves (the questions):
	// a value of the wrong kind is then taken as the member failing, with its safe
	// answer, and loading only warns. For the others it is a load error.
	FailsClosed bool
	// Flag, when set, is the word luatool list and describe show for a tool that
	// answers the member yes for an empty input: "read-only" (see Tool.Flag).
	Flag string
	// Acts is set for the one member that acts: call. The others are questions,
	// asked before or after it (isReadOnly, validateInput, checkPermissions,
	// mapResult, ...), and a question may read but never change the world, start what
	// outlives the call, show the model a file, report progress, reach the network,
	// ask the host's model or read a secret: what it returns is shown to people and
	// the model, and no permission was asked for it (see CallContext.Grant).
	Acts bool
	// RawInput is set for the members given the input as the model sent it, before
	// the schema (coerceInput, validationErrorSteer): it may hold any field, and
	// reading one the schema does not declare is what they are for.
	RawInput bool
	// Checked, when set, is what a failure of the member means, in words: luatool
	// check asks the member, with an empty input when it takes one (see CheckMembers).
	Checked string

	// value is where a ToolDef holds a plain value of the member; nil when a plain
	// value is given as a function answering it. fn is where it holds a function.
	value, fn *place
	// flag answers the member for Tool.Flag.
	flag func(t *Tool, ctx context.Context, input map[string]any) bool
}

// The answers of the defaults table, in words, where several members share them.
const (
	loadError = "load error"
	theName   = "the tool name"
	none      = "none"
)

// The parameters of the members' functions, where several members share them.
var (
	paramsInput    = []string{"input"}
	paramsCall     = []string{"input", "ctx"}
	paramsQuestion = []string{"input", "ctx?"}
)

// members is the contract, in the order the defaults table lists it.
var members = []Member{
	{Name: "name", Kind: kindString, Absent: loadError, OnError: loadError,
		value: field(func(d *ToolDef) *string { return &d.Name })},
	{Name: "inputSchema", Kind: kindSchema, Absent: loadError, OnError: loadError,
		value: field(func(d *ToolDef) *map[string]any { return &d.InputSchema })},
	{Name: "prompt", Kind: kindStringFn, Params: []string{"opts"}, Answer: "string", Absent: loadError, OnError: "call error",
		Checked: "the tool cannot be offered to a model", fn: promptFunc(func(d *ToolDef) *func(context.Context, PromptOptions) (string, error) { return &d.Prompt })},
	{Name: "call", Acts: true, Kind: kindFunc, Params: paramsCall, Answer: "result", Absent: loadError, OnError: "is_error result",
		fn: field(func(d *ToolDef) *func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return &d.Call
		})},
	{Name: "aliases", Kind: kindStrings, Absent: none, OnError: loadError,
		value: field(func(d *ToolDef) *[]string { return &d.Aliases })},
	{Name: "searchHint", Kind: kindString, Absent: none, OnError: loadError,
		value: field(func(d *ToolDef) *string { return &d.SearchHint })},
	{Name: "shouldDefer", Kind: kindBool, Absent: "false", OnError: loadError, Flag: "deferred",
		value: field(func(d *ToolDef) *bool { return &d.ShouldDefer }), flag: deferred},
	{Name: "alwaysLoad", Kind: kindBool, Absent: "false", OnError: loadError,
		value: field(func(d *ToolDef) *bool { return &d.AlwaysLoad })},
	{Name: "isIdempotent", Kind: kindBool, Absent: "false (a hint for MCP clients only)", OnError: loadError,
		value: hintField(func(h *Hints) **bool { return &h.Idempotent })},
	{Name: "maxResultSizeChars", Kind: kindNumber, Absent: "50000 (effective min(x, 50000))", OnError: loadError,
		value: field(func(d *ToolDef) *float64 { return &d.MaxResultSizeChars })},
	{Name: "outputSchema", Kind: kindSchema, Absent: none, OnError: loadError,
		value: field(func(d *ToolDef) *map[string]any { return &d.OutputSchema })},
	{Name: "network", Kind: kindStrings, Absent: "none (no host)", OnError: loadError,
		value: field(func(d *ToolDef) *[]string { return &d.Network })},
	{Name: "description", Kind: kindStringFn, Params: []string{"input", "opts"}, Answer: "string", Absent: theName, OnError: theName, FailsClosed: true,
		Checked: "the tool name is shown instead", fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (string, error) { return &d.Description })},
	{Name: "userFacingName", Kind: kindStringFn, Params: paramsInput, Answer: "string", Absent: theName, OnError: theName, FailsClosed: true,
		Checked: "the tool name is shown instead", fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (string, error) { return &d.UserFacingName })},
	{Name: "isEnabled", Kind: kindBoolFn, Answer: "boolean", Absent: "true", OnError: "false (hidden)", FailsClosed: true,
		fn: field(func(d *ToolDef) *func(context.Context) (bool, error) { return &d.IsEnabled })},
	{Name: "isReadOnly", Kind: kindBoolFn, Params: paramsQuestion, Answer: "boolean", Absent: "false", OnError: "false", FailsClosed: true,
		Flag: "read-only", Checked: "it counts as false", flag: (*Tool).IsReadOnly,
		value: hintField(func(h *Hints) **bool { return &h.ReadOnly }), fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (bool, error) { return &d.IsReadOnly })},
	{Name: "isConcurrencySafe", Kind: kindBoolFn, Params: paramsQuestion, Answer: "boolean", Absent: "false", OnError: "false", FailsClosed: true,
		Flag: "concurrency-safe", Checked: "it counts as false", flag: (*Tool).IsConcurrencySafe,
		value: hintField(func(h *Hints) **bool { return &h.ConcurrencySafe }), fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (bool, error) { return &d.IsConcurrencySafe })},
	{Name: "isDestructive", Kind: kindBoolFn, Params: paramsInput, Answer: "boolean", Absent: "false", OnError: "true", FailsClosed: true,
		Flag: "destructive", Checked: "it counts as true", flag: (*Tool).IsDestructive,
		value: hintField(func(h *Hints) **bool { return &h.Destructive }), fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (bool, error) { return &d.IsDestructive })},
	{Name: "isOpenWorld", Kind: kindBoolFn, Params: paramsInput, Answer: "boolean", Absent: "false", OnError: "true", FailsClosed: true,
		Flag: "open-world", Checked: "it counts as true", flag: (*Tool).IsOpenWorld,
		value: hintField(func(h *Hints) **bool { return &h.OpenWorld }), fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (bool, error) { return &d.IsOpenWorld })},
	{Name: "interruptBehavior", Kind: kindInterrupt, Answer: "string", Absent: `"block"`, OnError: `"block"`, FailsClosed: true,
		Checked: `it counts as "block"`, fn: plainFunc(func(d *ToolDef) *func(context.Context) (string, error) { return &d.InterruptBehavior })},
	{Name: "coerceInput", Kind: kindFunc, Params: paramsInput, Answer: "input, note?", Absent: "the input as given", OnError: "the input as given", RawInput: true,
		fn: field(func(d *ToolDef) *func(context.Context, map[string]any) (map[string]any, string, error) {
			return &d.CoerceInput
		})},
	{Name: "validationErrorSteer", Kind: kindFunc, Params: paramsInput, Answer: "string", Absent: none, OnError: none, RawInput: true,
		fn: field(func(d *ToolDef) *func(context.Context, map[string]any) (string, error) {
			return &d.ValidationErrorSteer
		})},
	{Name: "validateInput", Kind: kindFunc, Params: paramsCall, Answer: "validation", Absent: "valid", OnError: "invalid, with the error text",
		fn: field(func(d *ToolDef) *func(context.Context, map[string]any, *CallContext) (ValidationResult, error) {
			return &d.ValidateInput
		})},
	{Name: "checkPermissions", Kind: kindFunc, Params: paramsCall, Answer: "permission", Absent: "allow if isReadOnly(input), else ask", OnError: "deny",
		fn: field(func(d *ToolDef) *func(context.Context, map[string]any, *CallContext) (PermissionResult, error) {
			return &d.CheckPermissions
		})},
	{Name: "getPath", Kind: kindFunc, Params: paramsInput, Answer: "string", Absent: none, OnError: "rules fail closed",
		Checked: "path rules fail closed", fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (string, error) { return &d.GetPath })},
	{Name: "ruleContent", Kind: kindFunc, Params: paramsInput, Answer: "strings", Absent: none, OnError: "rules fail closed",
		Checked: "content rules fail closed", fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) ([]string, error) { return &d.RuleContent })},
	{Name: "toAutoClassifierInput", Kind: kindFunc, Params: paramsInput, Answer: "string", Absent: `""`, OnError: `""`,
		Checked: `it counts as ""`, fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (string, error) {
			return &d.ToAutoClassifierInput
		})},
	{Name: "mapResult", Kind: kindFunc, Params: []string{"data", "toolUseId"}, Answer: "content", Absent: "strings as is, other data as JSON", OnError: "is_error result",
		fn: field(func(d *ToolDef) *func(context.Context, any, string) (Content, error) { return &d.MapResult })},
	{Name: "renderToolUseMessage", Kind: kindFunc, Params: paramsInput, Answer: "string", Absent: "plain default rendering", OnError: "default rendering",
		Checked: "the default rendering is used", fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (string, error) {
			return &d.RenderToolUseMessage
		})},
	{Name: "renderToolResultMessage", Kind: kindFunc, Params: []string{"data"}, Answer: "string", Absent: "plain default rendering", OnError: "default rendering",
		fn: field(func(d *ToolDef) *func(context.Context, any) (string, error) { return &d.RenderToolResultMessage })},
	{Name: "renderToolUseProgressMessage", Kind: kindFunc, Params: []string{"progress"}, Answer: "string", Absent: "plain default rendering", OnError: "default rendering",
		fn: field(func(d *ToolDef) *func(context.Context, any) (string, error) { return &d.RenderToolUseProgressMessage })},
	{Name: "renderToolUseRejectedMessage", Kind: kindFunc, Params: paramsInput, Answer: "string", Absent: "plain default rendering", OnError: "default rendering",
		Checked: "the default rendering is used", fn: inputFunc(func(d *ToolDef) *func(context.Context, map[string]any) (string, error) {
			return &d.RenderToolUseRejectedMessage
		})},
	{Name: "renderToolUseErrorMessage", Kind: kindFunc, Params: []string{"message"}, Answer: "string", Absent: "plain default rendering", OnError: "default rendering",
		fn: field(func(d *ToolDef) *func(context.Context, string) (string, error) { return &d.RenderToolUseErrorMessage })},
}

// Members returns the members of the Tool contract, in the order of the defaults
// table. The slice is a copy.
func Members() []Member { return slices.Clone(members) }

// Gives reports whether a tool gives this member, rather than taking the default.
// A flag given as a plain value counts (it is a hint).
func (t *Tool) Gives(member string) bool {
	m, ok := LookupMember(member)
	return ok && (m.value.gives(&t.def) || m.fn.gives(&t.def))
}

// Flag returns the tool's answer to a member that is a flag (one with a Flag word;
// false for any other name), for input: as the tool answers it, with the defaults
// table's answer when it is absent or fails. For a nil input it is what the tool
// declares for every input (its plain value), no when it declares nothing.
func (t *Tool) Flag(ctx context.Context, member string, input map[string]any) bool {
	m, ok := LookupMember(member)
	switch {
	case !ok || m.flag == nil:
		return false
	case input == nil && m.value != nil && m.value.declared != nil:
		return m.value.declared(&t.def)
	}
	return m.flag(t, ctx, input)
}

// deferred answers shouldDefer's flag: whether the schema is withheld, which
// alwaysLoad decides too.
func deferred(t *Tool, _ context.Context, _ map[string]any) bool { return t.Deferred() }

// HoldsValue reports whether a ToolDef holds a plain value of the member as it is
// (in a field of its own, or as a hint): a loader gives Define that value. A plain
// value of any other member is given to Define as a function answering it.
func (m Member) HoldsValue() bool { return m.value != nil }

// Define puts v where the member goes in d: a plain value of the member's kind
// (string, bool, float64, []string, or map[string]any for a schema) when it
// HoldsValue, or a function of the member's Params and Answer, of the type of its
// ToolDef field. A v of another type is an error, naming the type the member takes:
// a loader and the table disagree.
func (m Member) Define(d *ToolDef, v any) error {
	for _, p := range []*place{m.value, m.fn} {
		if p != nil && p.set(d, v) {
			return nil
		}
	}
	var takes []string
	for _, p := range []*place{m.value, m.fn} {
		if p != nil {
			takes = append(takes, p.holds)
		}
	}
	return fmt.Errorf("member %s takes %s in a ToolDef, not %T", m.Name, strings.Join(takes, " or "), v)
}

// Signature says how a function of the member is called and what it returns, as
// the contract table of docs/architecture.md shows it: "(input, ctx?) → boolean";
// "" for a member that is never a function.
func (m Member) Signature() string {
	if m.Answer == "" {
		return ""
	}
	return "(" + strings.Join(m.Params, ", ") + ") → " + m.Answer
}

// LookupMember returns the member of this name.
func LookupMember(name string) (Member, bool) {
	i := slices.IndexFunc(members, func(m Member) bool { return m.Name == name })
	if i < 0 {
		return Member{}, false
	}
	return members[i], true
}

// defaultsTable renders the members as the defaults table of defaults.go.
func defaultsTable() string {
	var b strings.Builder
	row := func(a, b2, c string) { fmt.Fprintf(&b, "%-29s%-41s%s\n", a, b2, c) }
	row("member", "absent", "on error")
	for _, m := range members {
		row(m.Name, m.Absent, m.OnError)
	}
	return b.String()
}

// The fields of a ToolResult as tool files spell them, and of its contextModifier.
var (
	resultFields        = []string{"data", "newMessages", "contextModifier", "mcpMeta"}
	contextChangeFields = []string{"cwd", "mode", "allow", "ask", "deny", "state"}
)

// ResultFields returns the fields of a ToolResult as tool files spell them (data,
// newMessages, contextModifier, mcpMeta), and those of its contextModifier (cwd,
// mode, allow, ask, deny, state).
func ResultFields() (result, contextChange []string) {
	return slices.Clone(resultFields), slices.Clone(contextChangeFields)
}
