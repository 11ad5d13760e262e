package engine

import (
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
// what it may be, and what a tool gets when it leaves the member out or the member
// fails. The table of Members is the one description of the contract: loaders check
// tool files against it, luatool describe and the type definitions follow it, and the
// defaults table at the top of defaults.go is its rendering (a test keeps them equal).
type Member struct {
	// Name is the member's name in a tool file: "isReadOnly".
	Name string
	// Kind is what the member may be.
	Kind MemberKind
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

	// given reports whether a ToolDef gives the member.
	given func(d *ToolDef) bool
}

// The answers of the defaults table, in words, where several members share them.
const (
	loadError = "load error"
	theName   = "the tool name"
	none      = "none"
)

// members is the contract, in the order the defaults table lists it.
var members = []Member{
	{Name: "name", Kind: kindString, Absent: loadError, OnError: loadError, given: func(d *ToolDef) bool { return d.Name != "" }},
	{Name: "inputSchema", Kind: kindSchema, Absent: loadError, OnError: loadError, given: func(d *ToolDef) bool { return d.InputSchema != nil }},
	{Name: "prompt", Kind: kindStringFn, Absent: loadError, OnError: "call error", given: func(d *ToolDef) bool { return d.Prompt != nil }},
	{Name: "call", Kind: kindFunc, Absent: loadError, OnError: "is_error result", given: func(d *ToolDef) bool { return d.Call != nil }},
	{Name: "aliases", Kind: kindStrings, Absent: none, OnError: loadError, given: func(d *ToolDef) bool { return len(d.Aliases) > 0 }},
	{Name: "searchHint", Kind: kindString, Absent: none, OnError: loadError, given: func(d *ToolDef) bool { return d.SearchHint != "" }},
	{Name: "shouldDefer", Kind: kindBool, Absent: "false", OnError: loadError, given: func(d *ToolDef) bool { return d.ShouldDefer }},
	{Name: "alwaysLoad", Kind: kindBool, Absent: "false", OnError: loadError, given: func(d *ToolDef) bool { return d.AlwaysLoad }},
	{Name: "isIdempotent", Kind: kindBool, Absent: "false (a hint for MCP clients only)", OnError: loadError, given: func(d *ToolDef) bool { return d.Hints.Idempotent != nil }},
	{Name: "maxResultSizeChars", Kind: kindNumber, Absent: "50000 (effective min(x, 50000))", OnError: loadError, given: func(d *ToolDef) bool { return d.MaxResultSizeChars != 0 }},
	{Name: "outputSchema", Kind: kindSchema, Absent: none, OnError: loadError, given: func(d *ToolDef) bool { return d.OutputSchema != nil }},
	{Name: "network", Kind: kindStrings, Absent: "none (no host)", OnError: loadError, given: func(d *ToolDef) bool { return len(d.Network) > 0 }},
	{Name: "description", Kind: kindStringFn, Absent: theName, OnError: theName, FailsClosed: true, given: func(d *ToolDef) bool { return d.Description != nil }},
	{Name: "userFacingName", Kind: kindStringFn, Absent: theName, OnError: theName, FailsClosed: true, given: func(d *ToolDef) bool { return d.UserFacingName != nil }},
	{Name: "isEnabled", Kind: kindBoolFn, Absent: "true", OnError: "false (hidden)", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsEnabled != nil }},
	{Name: "isReadOnly", Kind: kindBoolFn, Absent: "false", OnError: "false", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsReadOnly != nil || d.Hints.ReadOnly != nil }},
	{Name: "isConcurrencySafe", Kind: kindBoolFn, Absent: "false", OnError: "false", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsConcurrencySafe != nil || d.Hints.ConcurrencySafe != nil }},
	{Name: "isDestructive", Kind: kindBoolFn, Absent: "false", OnError: "true", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsDestructive != nil || d.Hints.Destructive != nil }},
	{Name: "isOpenWorld", Kind: kindBoolFn, Absent: "false", OnError: "true", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsOpenWorld != nil || d.Hints.OpenWorld != nil }},
	{Name: "interruptBehavior", Kind: kindInterrupt, Absent: `"block"`, OnError: `"block"`, FailsClosed: true, given: func(d *ToolDef) bool { return d.InterruptBehavior != nil }},
	{Name: "validateInput", Kind: kindFunc, Absent: "valid", OnError: "invalid, with the error text", given: func(d *ToolDef) bool { return d.ValidateInput != nil }},
	{Name: "checkPermissions", Kind: kindFunc, Absent: "allow if isReadOnly(input), else ask", OnError: "deny", given: func(d *ToolDef) bool { return d.CheckPermissions != nil }},
	{Name: "getPath", Kind: kindFunc, Absent: none, OnError: "rules fail closed", given: func(d *ToolDef) bool { return d.GetPath != nil }},
	{Name: "ruleContent", Kind: kindFunc, Absent: none, OnError: "rules fail closed", given: func(d *ToolDef) bool { return d.RuleContent != nil }},
	{Name: "toAutoClassifierInput", Kind: kindFunc, Absent: `""`, OnError: `""`, given: func(d *ToolDef) bool { return d.ToAutoClassifierInput != nil }},
	{Name: "mapResult", Kind: kindFunc, Absent: "strings as is, other data as JSON", OnError: "is_error result", given: func(d *ToolDef) bool { return d.MapResult != nil }},
	{Name: "renderToolUseMessage", Kind: kindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolUseMessage != nil }},
	{Name: "renderToolResultMessage", Kind: kindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolResultMessage != nil }},
	{Name: "renderToolUseProgressMessage", Kind: kindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolUseProgressMessage != nil }},
	{Name: "renderToolUseRejectedMessage", Kind: kindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolUseRejectedMessage != nil }},
	{Name: "renderToolUseErrorMessage", Kind: kindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolUseErrorMessage != nil }},
}

// Members returns the members of the Tool contract, in the order of the defaults
// table. The slice is a copy.
func Members() []Member { return slices.Clone(members) }

// Gives reports whether a tool gives this member, rather than taking the default.
// A flag given as a plain value counts (it is a hint).
func (t *Tool) Gives(member string) bool {
	m, ok := LookupMember(member)
	return ok && m.given(&t.def)
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

// ResultFields returns the fields of a ToolResult as tool files spell them: data,
// newMessages, contextModifier, mcpMeta.
func ResultFields() []string { return slices.Clone(resultFields) }

// ContextChangeFields returns the fields of a contextModifier as tool files spell
// them: cwd, mode, allow, ask, deny, state.
func ContextChangeFields() []string { return slices.Clone(contextChangeFields) }
