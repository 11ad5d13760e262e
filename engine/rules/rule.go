package rules

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/luatool/luatool/internal/nameshape"
)

// A rule is one permission rule: a tool name, and for a content rule the text that
// the tool's getPath or ruleContent answer is matched against. Rules are written
// "Tool" (a tool-level rule, which governs every call of the tool) or
// "Tool(content)"; see parseRule.
type parsedRule struct {
	// Tool is the tool's permission name, legacy names already normalised: a tool
	// name, or an MCP name "mcp__server", "mcp__server__tool" or "mcp__server__*".
	Tool string
	// Content is the rule content with the rule syntax's escapes removed. It is empty
	// when HasContent is false.
	Content string
	// HasContent is false for a tool-level rule. A content rule never has the content
	// "" or "*": those are written as tool-level rules.
	HasContent bool
}

// A ruleError says why a permission rule string does not parse.
type ruleError struct {
	// text is the rule as given.
	text string
	// Column is the 1-based position, in characters, of the problem in the rule; 0
	// when the problem is the rule as a whole.
	Column int
	// Problem says what is wrong, in words.
	Problem string
}

// Error renders `rule "Bash(ls": column 5: ...`.
func (e *ruleError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("rule %q: column %d: %s", e.text, e.Column, e.Problem)
	}
	return fmt.Sprintf("rule %q: %s", e.text, e.Problem)
}

// parseRule parses a permission rule, "Tool" or "Tool(content)".
//
// The tool name is the text before the first unescaped "("; it must be a valid tool
// name (nameshape.ToolName: a letter, then letters, digits, _, - or ., at most 128 in
// all) or an MCP name
// ("mcp__server", "mcp__server__tool", "mcp__server__*"). The content runs to the
// final ")", which must be the last character. Inside the content, \(, \) and \\
// stand for (, ) and \; any other backslash is kept as it is, so a Bash rule's \*
// reaches matchContent unchanged. "Tool()" and "Tool(*)" are the tool-level rule
// "Tool". Legacy names are normalised: Task becomes Agent, KillShell TaskStop, and
// AgentOutputTool and BashOutputTool TaskOutput.
//
// Unlike the original, which takes a malformed string for a bare tool name, parseRule
// rejects it with a *ruleError that gives the column: an empty rule or tool name, an
// invalid tool name, a missing ")", text after the closing ")", and an unescaped "("
// or ")" inside the content.
func parseRule(s string) (parsedRule, error) {
	fail := func(byteOffset int, format string, args ...any) (parsedRule, error) {
		col := 0
		if byteOffset >= 0 {
			col = utf8.RuneCountInString(s[:byteOffset]) + 1
		}
		return parsedRule{}, &ruleError{text: s, Column: col, Problem: fmt.Sprintf(format, args...)}
	}
	if s == "" {
		return fail(-1, "empty rule; write a tool name, as in Bash or Bash(git status)")
	}
	open := strings.IndexByte(s, '(')
	name := s
	if open >= 0 {
		name = s[:open]
	}
	if name == "" {
		return fail(0, "no tool name before '('")
	}
	if i := strings.IndexByte(name, ')'); i >= 0 {
		return fail(i, "')' without an opening '('")
	}
	if !validRuleToolName(name) {
		return fail(0, "%q is not a tool name (a letter, then letters, digits, _, - or ., at most 128 in all; or mcp__server, mcp__server__tool, mcp__server__*)", name)
	}
	r := parsedRule{Tool: canonicalToolName(name)}
	if open < 0 {
		return r, nil
	}
	var content strings.Builder
	for i := open + 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) && strings.IndexByte(`()\`, s[i+1]) >= 0 {
				content.WriteByte(s[i+1])
				i++
			} else {
				content.WriteByte(c)
			}
		case '(':
			return fail(i, `unescaped '(' inside the content; write \( for a literal parenthesis`)
		case ')':
			if i == len(s)-1 {
				if c := content.String(); c != "" && c != "*" {
					r.Content, r.HasContent = c, true
				}
				return r, nil
			}
			if strings.Contains(unescapedParens(s[i+1:]), ")") {
				return fail(i, `unescaped ')' inside the content; write \) for a literal parenthesis`)
			}
			return fail(i+1, "text %q after the closing ')'", s[i+1:])
		default:
			content.WriteByte(c)
		}
	}
	return fail(open, "'(' is never closed; the rule must end with ')'")
}

// unescapedParens returns s with its escape pairs removed, leaving the parentheses
// that the rule syntax would take as delimiters.
func unescapedParens(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`()\`, s[i+1]) >= 0 {
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// String renders the rule in canonical form: the tool name, and the content in
// parentheses with (, ) and the backslashes that need it escaped, so that parseRule
// gives r back. A backslash is doubled only where parseRule would otherwise read it
// as an escape: before (, ) or \, and at the end of the content.
func (r parsedRule) String() string {
	if !r.HasContent {
		return r.Tool
	}
	var b strings.Builder
	b.WriteString(r.Tool)
	b.WriteByte('(')
	for i := 0; i < len(r.Content); i++ {
		switch c := r.Content[i]; c {
		case '(', ')':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\\':
			if i+1 == len(r.Content) || strings.IndexByte(`()\`, r.Content[i+1]) >= 0 {
				b.WriteString(`\\`)
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(')')
	return b.String()
}

// validRuleToolName reports whether name may stand before the parenthesis of a rule:
// a tool name, or an MCP name. An MCP name is "mcp__" and a server name, optionally
// followed by "__" and a tool name or "*"; server and tool names are letters, digits,
// _ and -, and are not limited to 64 characters, since the original builds them from
// user-chosen server names.
func validRuleToolName(name string) bool {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return nameshape.ToolName().MatchString(name)
	}
	server, tool, hasTool := strings.Cut(rest, "__")
	if !mcpNamePart(server) {
		return false
	}
	return !hasTool || tool == "*" || mcpNamePart(tool)
}

// mcpNamePart reports whether s is a non-empty run of letters, digits, _ and -.
func mcpNamePart(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// canonicalToolName maps the legacy tool names of the original to their current
// ones.
func canonicalToolName(name string) string {
	switch name {
	case "Task":
		return "Agent"
	case "KillShell":
		return "TaskStop"
	case "AgentOutputTool", "BashOutputTool":
		return "TaskOutput"
	}
	return name
}

// matchContent reports whether a command-style rule content (a Bash rule's pattern)
// matches a command, the tool's ruleContent answer. The pattern takes one of three
// forms, chosen in this order; both pattern and content are first trimmed of
// surrounding white space.
//
// Prefix: a pattern ending in ":*" with text before it (the legacy form, as in
// "npm run test:*") matches a content that equals the text before ":*" (trimmed) or
// starts with it followed by a space, so "npm run test:*" matches "npm run test" and
// "npm run test --watch" but not "npm run test:unit" or "npm run tests". As in the
// original, it also matches that command run by xargs: "xargs npm run test ...".
// The prefix is compared as written: no escapes apply.
//
// Wildcard: a pattern with an unescaped "*" matches the whole content, each "*"
// standing for any run of characters, newlines included. In this form \* is a literal
// star and \\ a literal backslash; any other backslash is itself. When the only
// wildcard is a trailing " *", the pattern also matches the command without
// arguments: "git *" matches "git" and "git status" but not "gitk".
//
// Exact: any other pattern matches a content equal to it, byte for byte (a \* here is
// the two characters, as a shell command would contain them).
//
// matchContent matches one command. The original never lets a prefix or wildcard
// rule match a compound command ("a && b") as a whole, and tries exact rules also
// with output redirections and, for deny and ask rules, leading environment
// variables and wrappers stripped; splitting and stripping are the caller's work.
func matchContent(pattern, content string) bool {
	pattern = strings.TrimSpace(pattern)
	content = strings.TrimSpace(content)
	if prefix, ok := strings.CutSuffix(pattern, ":*"); ok && prefix != "" {
		prefix = strings.TrimSpace(prefix)
		for _, c := range []string{content, strings.TrimPrefix(content, "xargs ")} {
			if c == prefix || strings.HasPrefix(c, prefix+" ") {
				return true
			}
		}
		return false
	}
	parts := splitWildcard(pattern)
	if len(parts) == 1 {
		return content == pattern
	}
	if len(parts) == 2 && parts[1] == "" && strings.HasSuffix(parts[0], " ") &&
		content == strings.TrimSuffix(parts[0], " ") {
		return true
	}
	return matchParts(parts, content)
}

// splitWildcard splits a wildcard pattern at its unescaped stars and unescapes \*
// and \\ in the pieces. A pattern without an unescaped star gives one piece, which
// the caller does not use: an exact pattern is compared as written.
func splitWildcard(pattern string) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern) && (pattern[i+1] == '*' || pattern[i+1] == '\\'):
			cur.WriteByte(pattern[i+1])
			i++
		case c == '*':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, cur.String())
}

// matchParts reports whether s is parts[0], then anything, then parts[1], and so on:
// the pieces of a wildcard pattern between its stars, with the first anchored at the
// start and the last at the end. Taking the leftmost occurrence of each middle piece
// is enough, since a star can absorb whatever an earlier choice left.
func matchParts(parts []string, s string) bool {
	first, last := parts[0], parts[len(parts)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
