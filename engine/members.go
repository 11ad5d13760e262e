package engine

import (
	"fmt"
	"slices"
	"strings"
)

// A MemberKind is what a member of the Tool contract may be in a tool file.
type MemberKind int

// The member kinds.
const (
	KindString          MemberKind = iota + 1 // a string
	KindBool                                  // a boolean
	KindNumber                                // a number
	KindStrings                               // a list of strings
	KindSchema                                // a JSON Schema: a table with string keys
	KindFunc                                  // a function
	KindStringOrFunc                          // a string, or a function returning one
	KindBoolOrFunc                            // a boolean, or a function returning one
	KindInterruptOrFunc                       // "cancel" or "block", or a function returning one
)

// String says what the kind is, as messages say it: "a boolean or a function".
func (k MemberKind) String() string {
	switch k {
	case KindString:
		return "a string"
	case KindBool:
		return "a boolean"
	case KindNumber:
		return "a number"
	case KindStrings:
		return "a list of strings"
	case KindSchema:
		return "a table"
	case KindFunc:
		return "a function"
	case KindStringOrFunc:
		return "a string or a function"
	case KindBoolOrFunc:
		return "a boolean or a function"
	case KindInterruptOrFunc:
		return `"cancel", "block" or a function`
	}
	return "nothing"
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
	{Name: "name", Kind: KindString, Absent: loadError, OnError: loadError, given: func(d *ToolDef) bool { return d.Name != "" }},
	{Name: "inputSchema", Kind: KindSchema, Absent: loadError, OnError: loadError, given: func(d *ToolDef) bool { return d.InputSchema != nil }},
	{Name: "prompt", Kind: KindStringOrFunc, Absent: loadError, OnError: "call error", given: func(d *ToolDef) bool { return d.Prompt != nil }},
	{Name: "call", Kind: KindFunc, Absent: loadError, OnError: "is_error result", given: func(d *ToolDef) bool { return d.Call != nil }},
	{Name: "aliases", Kind: KindStrings, Absent: none, OnError: loadError, given: func(d *ToolDef) bool { return len(d.Aliases) > 0 }},
	{Name: "searchHint", Kind: KindString, Absent: none, OnError: loadError, given: func(d *ToolDef) bool { return d.SearchHint != "" }},
	{Name: "shouldDefer", Kind: KindBool, Absent: "false", OnError: loadError, given: func(d *ToolDef) bool { return d.ShouldDefer }},
	{Name: "alwaysLoad", Kind: KindBool, Absent: "false", OnError: loadError, given: func(d *ToolDef) bool { return d.AlwaysLoad }},
	{Name: "isIdempotent", Kind: KindBool, Absent: "false (a hint for MCP clients only)", OnError: loadError, given: func(d *ToolDef) bool { return d.Hints.Idempotent != nil }},
	{Name: "maxResultSizeChars", Kind: KindNumber, Absent: "50000 (effective min(x, 50000))", OnError: loadError, given: func(d *ToolDef) bool { return d.MaxResultSizeChars != 0 }},
	{Name: "outputSchema", Kind: KindSchema, Absent: none, OnError: loadError, given: func(d *ToolDef) bool { return d.OutputSchema != nil }},
	{Name: "description", Kind: KindStringOrFunc, Absent: theName, OnError: theName, FailsClosed: true, given: func(d *ToolDef) bool { return d.Description != nil }},
	{Name: "userFacingName", Kind: KindStringOrFunc, Absent: theName, OnError: theName, FailsClosed: true, given: func(d *ToolDef) bool { return d.UserFacingName != nil }},
	{Name: "isEnabled", Kind: KindBoolOrFunc, Absent: "true", OnError: "false (hidden)", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsEnabled != nil }},
	{Name: "isReadOnly", Kind: KindBoolOrFunc, Absent: "false", OnError: "false", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsReadOnly != nil || d.Hints.ReadOnly != nil }},
	{Name: "isConcurrencySafe", Kind: KindBoolOrFunc, Absent: "false", OnError: "false", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsConcurrencySafe != nil || d.Hints.ConcurrencySafe != nil }},
	{Name: "isDestructive", Kind: KindBoolOrFunc, Absent: "false", OnError: "true", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsDestructive != nil || d.Hints.Destructive != nil }},
	{Name: "isOpenWorld", Kind: KindBoolOrFunc, Absent: "false", OnError: "true", FailsClosed: true, given: func(d *ToolDef) bool { return d.IsOpenWorld != nil || d.Hints.OpenWorld != nil }},
	{Name: "interruptBehavior", Kind: KindInterruptOrFunc, Absent: `"block"`, OnError: `"block"`, FailsClosed: true, given: func(d *ToolDef) bool { return d.InterruptBehavior != nil }},
	{Name: "validateInput", Kind: KindFunc, Absent: "valid", OnError: "invalid, with the error text", given: func(d *ToolDef) bool { return d.ValidateInput != nil }},
	{Name: "checkPermissions", Kind: KindFunc, Absent: "allow if isReadOnly(input), else ask", OnError: "deny", given: func(d *ToolDef) bool { return d.CheckPermissions != nil }},
	{Name: "getPath", Kind: KindFunc, Absent: none, OnError: "rules fail closed", given: func(d *ToolDef) bool { return d.GetPath != nil }},
	{Name: "ruleContent", Kind: KindFunc, Absent: none, OnError: "rules fail closed", given: func(d *ToolDef) bool { return d.RuleContent != nil }},
	{Name: "toAutoClassifierInput", Kind: KindFunc, Absent: `""`, OnError: `""`, given: func(d *ToolDef) bool { return d.ToAutoClassifierInput != nil }},
	{Name: "mapResult", Kind: KindFunc, Absent: "strings as is, other data as JSON", OnError: "is_error result", given: func(d *ToolDef) bool { return d.MapResult != nil }},
	{Name: "renderToolUseMessage", Kind: KindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolUseMessage != nil }},
	{Name: "renderToolResultMessage", Kind: KindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolResultMessage != nil }},
	{Name: "renderToolUseProgressMessage", Kind: KindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolUseProgressMessage != nil }},
	{Name: "renderToolUseRejectedMessage", Kind: KindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolUseRejectedMessage != nil }},
	{Name: "renderToolUseErrorMessage", Kind: KindFunc, Absent: "plain default rendering", OnError: "default rendering", given: func(d *ToolDef) bool { return d.RenderToolUseErrorMessage != nil }},
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
