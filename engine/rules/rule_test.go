package rules

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// parseRuleCases are well-formed rules and what they parse to.
var parseRuleCases = []struct {
	in   string
	want parsedRule
}{
	{"Bash", parsedRule{Tool: "Bash"}},
	{"Bash()", parsedRule{Tool: "Bash"}},
	{"Bash(*)", parsedRule{Tool: "Bash"}},
	{"Bash(git status)", parsedRule{"Bash", "git status", true}},
	{"Bash(npm run test:*)", parsedRule{"Bash", "npm run test:*", true}},
	{"Read(./src/**)", parsedRule{"Read", "./src/**", true}},
	{"Read(//etc/hosts)", parsedRule{"Read", "//etc/hosts", true}},
	{"WebFetch(domain:example.com)", parsedRule{"WebFetch", "domain:example.com", true}},
	{`Bash(echo \(hi\))`, parsedRule{"Bash", "echo (hi)", true}},
	{`Bash(a\\b)`, parsedRule{"Bash", `a\b`, true}},
	{`Bash(a\b)`, parsedRule{"Bash", `a\b`, true}},
	{`Bash(echo \*)`, parsedRule{"Bash", `echo \*`, true}},
	{`Bash(\*)`, parsedRule{"Bash", `\*`, true}},
	{`Bash(**)`, parsedRule{"Bash", `**`, true}},
	{`Bash(foo\\)`, parsedRule{"Bash", `foo\`, true}},
	{`Bash(\\\()`, parsedRule{"Bash", `\(`, true}},
	{`Bash(\()`, parsedRule{"Bash", `(`, true}},
	{"Bash( )", parsedRule{"Bash", " ", true}},
	{"Bash(echo a\nb)", parsedRule{"Bash", "echo a\nb", true}},
	{"Bash(echo héllo)", parsedRule{"Bash", "echo héllo", true}},
	{"Task", parsedRule{Tool: "Agent"}},
	{"Task(Explore)", parsedRule{"Agent", "Explore", true}},
	{"KillShell", parsedRule{Tool: "TaskStop"}},
	{"AgentOutputTool", parsedRule{Tool: "TaskOutput"}},
	{"BashOutputTool()", parsedRule{Tool: "TaskOutput"}},
	{"Agent", parsedRule{Tool: "Agent"}},
	{"my_tool-2", parsedRule{Tool: "my_tool-2"}},
	{"T" + strings.Repeat("x", 127), parsedRule{Tool: "T" + strings.Repeat("x", 127)}},
	{"mcp__github", parsedRule{Tool: "mcp__github"}},
	{"mcp__github__*", parsedRule{Tool: "mcp__github__*"}},
	{"mcp__github__create_issue", parsedRule{Tool: "mcp__github__create_issue"}},
	{"mcp__my-server__tool(x)", parsedRule{"mcp__my-server__tool", "x", true}},
	{"mcp__s__" + strings.Repeat("t", 80), parsedRule{Tool: "mcp__s__" + strings.Repeat("t", 80)}},
}

func TestParseRule(t *testing.T) {
	for _, tt := range parseRuleCases {
		got, err := parseRule(tt.in)
		if err != nil {
			t.Errorf("parseRule(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("parseRule(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	tests := []struct {
		in      string
		column  int
		problem string
	}{
		{"", 0, "empty rule"},
		{"(ls)", 1, "no tool name"},
		{"()", 1, "no tool name"},
		{"Bash)", 5, "')' without an opening '('"},
		{"Ba)sh(x)", 3, "')' without an opening '('"},
		{"Ba sh", 1, "not a tool name"},
		{" Bash", 1, "not a tool name"},
		{"Bash ", 1, "not a tool name"},
		{"Bash (ls)", 1, "not a tool name"},
		{"1Bash", 1, "not a tool name"},
		{"T" + strings.Repeat("x", 128), 1, "not a tool name"},
		{`Foo\(x)`, 1, "not a tool name"},
		{"Bäsh", 1, "not a tool name"},
		{"mcp__", 1, "not a tool name"},
		{"mcp____x", 1, "not a tool name"},
		{"mcp__srv__", 1, "not a tool name"},
		{"mcp__srv__a*", 1, "not a tool name"},
		{"mcp__s.v", 1, "not a tool name"},
		{"Bash(ls", 5, "never closed"},
		{`Bash(ls\)`, 5, "never closed"},
		{"Bash(", 5, "never closed"},
		{"Bash(ls) ", 9, `text " " after the closing ')'`},
		{"Bash(ls)x", 9, `text "x" after the closing ')'`},
		{`Bash(ls)\)`, 9, `after the closing ')'`},
		{"Bash(echo (a))", 11, `unescaped '(' inside the content`},
		{"Bash(a)b)", 7, `unescaped ')' inside the content`},
		{"Bash(a)(b)", 7, `unescaped ')' inside the content`},
		{"Bash(é(", 7, `unescaped '('`},
	}
	for _, tt := range tests {
		_, err := parseRule(tt.in)
		var re *ruleError
		if !errors.As(err, &re) {
			t.Errorf("parseRule(%q) error = %v, want a *ruleError", tt.in, err)
			continue
		}
		if re.text != tt.in || re.Column != tt.column || !strings.Contains(re.Problem, tt.problem) {
			t.Errorf("parseRule(%q) = %+v, want column %d and a problem containing %q", tt.in, *re, tt.column, tt.problem)
		}
		if !strings.Contains(err.Error(), tt.problem) || (tt.column > 0) != strings.Contains(err.Error(), "column") {
			t.Errorf("parseRule(%q) error text %q", tt.in, err)
		}
	}
}

func TestRuleString(t *testing.T) {
	tests := []struct {
		r    parsedRule
		want string
	}{
		{parsedRule{Tool: "Bash"}, "Bash"},
		{parsedRule{"Bash", "git status", true}, "Bash(git status)"},
		{parsedRule{"Bash", "echo (hi)", true}, `Bash(echo \(hi\))`},
		{parsedRule{"Bash", `a\b`, true}, `Bash(a\b)`},
		{parsedRule{"Bash", `echo \*`, true}, `Bash(echo \*)`},
		{parsedRule{"Bash", `a\`, true}, `Bash(a\\)`},
		{parsedRule{"Bash", `\(`, true}, `Bash(\\\()`},
		{parsedRule{"Bash", `a\\b`, true}, `Bash(a\\\b)`},
		{parsedRule{"Bash", `\\`, true}, `Bash(\\\\)`},
		{parsedRule{"Bash", `\)`, true}, `Bash(\\\))`},
		{parsedRule{"Bash", "**", true}, "Bash(**)"},
	}
	for _, tt := range tests {
		got := tt.r.String()
		if got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.r, got, tt.want)
		}
		back, err := parseRule(got)
		if err != nil || back != tt.r {
			t.Errorf("parseRule(%q) = %#v, %v; want %#v", got, back, err, tt.r)
		}
	}
}

func TestRuleStringRoundTrip(t *testing.T) {
	for _, tt := range parseRuleCases {
		s := tt.want.String()
		back, err := parseRule(s)
		if err != nil || back != tt.want {
			t.Errorf("parseRule(%q) = %#v, %v; want %#v (from %q)", s, back, err, tt.want, tt.in)
		}
	}
	if got := mustParseRule(t, "Task(x)").String(); got != "Agent(x)" {
		t.Errorf("a legacy name renders as %q, want Agent(x)", got)
	}
}

func mustParseRule(t *testing.T, s string) parsedRule {
	t.Helper()
	r, err := parseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// FuzzParseRule checks that parseRule never panics, that its errors are *RuleErrors
// with a column inside the input, and that a parsed rule survives String and
// parseRule unchanged. It also takes the input as the content of a Bash rule, to
// check String's escaping on any content.
func FuzzParseRule(f *testing.F) {
	for _, tt := range parseRuleCases {
		f.Add(tt.in)
	}
	for _, s := range []string{"", "(", ")", `\`, `Bash(\`, `Bash(\\\)`, "Bash(a)b)", "Bash(ls) ", "mcp__a__*(x)", "Bash(\xff)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s != "" && s != "*" {
			r := parsedRule{Tool: "Bash", Content: s, HasContent: true}
			if back, err := parseRule(r.String()); err != nil || back != r {
				t.Fatalf("content %q: String %q parses to %#v, %v", s, r.String(), back, err)
			}
		}
		r, err := parseRule(s)
		if err != nil {
			var re *ruleError
			if !errors.As(err, &re) {
				t.Fatalf("parseRule(%q) error %v is not a *ruleError", s, err)
			}
			if re.Column < 0 || re.Column > utf8.RuneCountInString(s) {
				t.Fatalf("parseRule(%q): column %d outside the input", s, re.Column)
			}
			return
		}
		if r.HasContent == (r.Content == "" || r.Content == "*") {
			t.Fatalf("parseRule(%q) = %#v: HasContent disagrees with Content", s, r)
		}
		back, err := parseRule(r.String())
		if err != nil {
			t.Fatalf("parseRule(%q) = %#v, but its String %q does not parse: %v", s, r, r.String(), err)
		}
		if back != r {
			t.Fatalf("parseRule(%q) = %#v; String %q parses to %#v", s, r, r.String(), back)
		}
	})
}

func TestMatchContent(t *testing.T) {
	tests := []struct {
		pattern, content string
		want             bool
	}{
		// Prefix.
		{"npm run test:*", "npm run test", true},
		{"npm run test:*", "npm run test --watch", true},
		{"npm run test:*", "npm run test:unit", false},
		{"npm run test:*", "npm run tests", false},
		{"npm run test:*", "npm run", false},
		{"npm run test:*", "  npm run test  ", true},
		{"npm run test:*", "xargs npm run test foo", true},
		{"npm run test:*", "xargs npm run testfoo", false},
		{"npm run test:*", "npm run test\tfoo", false},
		{"git commit:*", "git commit -m 'a\nb'", true},
		{"git :*", "git status", true},
		{"git *:*", "git *", true},
		{"git *:*", "git status", false},
		{`test\:*`, `test\ x`, true},
		// Wildcard.
		{":*", ":foo", true},
		{":*", "foo", false},
		{"git *", "git", true},
		{"git *", "git   ", true},
		{"git *", "git status", true},
		{"git *", "gitk", false},
		{"git *", "git\nstatus", false},
		{"git *", "git status\nrm -rf /", true},
		{"git * --force", "git push --force", true},
		{"git * --force", "git push --force-with-lease", false},
		{"git * --force", "git --force", false},
		{"git * *", "git", false},
		{"git * *", "git a b", true},
		{"*", "", true},
		{"*", "anything at all", true},
		{"* foo", "foo", false},
		{"* foo", "x foo", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "acb", false},
		{"a*b*c", "abcb", false},
		{"ab*bc", "abc", false},
		{"ab*bc", "abbc", true},
		{"*.txt", "a.txt", true},
		{"rm -rf *", "rm -rf /", true},
		{`echo \* *`, "echo * foo", true},
		{`echo \* *`, "echo *", true},
		{`echo \* *`, "echo x foo", false},
		{`a\\*`, `a\b`, true},
		{`a\\*`, "ab", false},
		{`a\x*`, `a\xy`, true},
		// Exact.
		{"git status", "git status", true},
		{" git status ", "git status\n", true},
		{"git status", "git status --short", false},
		{"git status", "git  status", false},
		{"git status", "Git status", false},
		{`echo \*`, `echo \*`, true},
		{`echo \*`, "echo *", false},
		{`echo \*`, "echo x", false},
		{"", "", true},
		{"", "ls", false},
	}
	for _, tt := range tests {
		if got := matchContent(tt.pattern, tt.content); got != tt.want {
			t.Errorf("matchContent(%q, %q) = %v, want %v", tt.pattern, tt.content, got, tt.want)
		}
	}
}
