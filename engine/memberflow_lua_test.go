package engine_test

import (
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// TestAddedMemberFlowsEverywhere adds a member to the contract's table (isSparkly,
// which only tests know: engine.AddTestMember) and sees it flow through every place
// a member is spelled, with no other change: the defaults table, the Lua loader's
// kind check and its conversion (a plain value, a function of the input, a value of
// the wrong kind), what a tool gives (describe's member list), the flags list and
// describe show (engine.Tool.Flag) and what luatool check asks (CheckMembers).
func TestAddedMemberFlowsEverywhere(t *testing.T) {
	engine.AddTestMember(t)
	m, ok := engine.LookupMember("isSparkly")
	if !ok || engine.Members()[len(engine.Members())-1].Name != "isSparkly" {
		t.Fatal("the added member is not in the contract")
	}
	if !strings.Contains(engine.DefaultsTable(), "\nisSparkly                    false") {
		t.Errorf("the defaults table has no row for the added member:\n%s", engine.DefaultsTable())
	}

	tool := func(name, member string) string {
		return luaSourceWith(`name = "`+name+`",`, memberPrompt, `inputSchema = {type = "object", properties = {x = {type = "number"}}},`, memberCall, member)
	}
	e, diags := loadLua(t, engine.Options{}, map[string]string{
		"plain.lua":  tool("Plain", "isSparkly = true,"),
		"asks.lua":   tool("Asks", "isSparkly = function(input) return input.x == 1 end,"),
		"fails.lua":  tool("Fails", `isSparkly = function(input) if input.x == nil then error("no x") end return false end,`),
		"wrong.lua":  tool("Wrong", `isSparkly = "very",`),
		"absent.lua": tool("Absent", ""),
	})
	// The loader knows the member (no "unknown member") and checks its kind.
	if d, ok := findDiag(diags, diag.SeverityWarning, "isSparkly must be a boolean or a function, got the string \"very\""); !ok || d.Line != 6 {
		t.Errorf("a wrong kind is not reported at its line: %s", diagText(diags))
	}
	if diag.HasErrors(diags) {
		t.Fatalf("loading: %s", diagText(diags))
	}
	reg := e.Registry()
	look := func(name string) *engine.Tool {
		t.Helper()
		tl, ok := reg.Lookup(name)
		if !ok {
			t.Fatalf("%s did not load", name)
		}
		return tl
	}

	// The flags: a plain value is declared for every input; a function is asked; a
	// failing one and a wrong kind take the fail-closed answer, true.
	for _, c := range []struct {
		tool     string
		input    map[string]any
		want     bool
		declared bool
	}{
		{"Plain", map[string]any{}, true, true},
		{"Asks", map[string]any{"x": 1.0}, true, false},
		{"Asks", map[string]any{"x": 2.0}, false, false},
		{"Fails", map[string]any{}, true, false},
		{"Wrong", map[string]any{}, true, false},
		{"Absent", map[string]any{}, false, false},
	} {
		tl := look(c.tool)
		if got := tl.Flag(bg, m.Name, c.input); got != c.want {
			t.Errorf("%s: Flag(isSparkly, %v) = %v, want %v", c.tool, c.input, got, c.want)
		}
		if got := tl.Flag(bg, m.Name, nil); got != c.declared {
			t.Errorf("%s: Flag(isSparkly) declared = %v, want %v", c.tool, got, c.declared)
		}
	}
	if m.Flag != "sparkly" {
		t.Errorf("the member's flag word is %q", m.Flag)
	}

	// describe's member list: given or the default.
	for name, want := range map[string]bool{"Plain": true, "Asks": true, "Fails": true, "Absent": false} {
		if got := look(name).Gives(m.Name); got != want {
			t.Errorf("%s gives isSparkly = %v, want %v", name, got, want)
		}
	}

	// check asks it for an empty input, and says what its failure means.
	var found []string
	for _, d := range e.CheckMembers(bg) {
		if strings.Contains(d.Message, "isSparkly") {
			found = append(found, d.String())
		}
	}
	want := "t/fails.lua:6: warning: Fails: isSparkly failed for an empty input (it counts as true): no x"
	if len(found) != 1 || found[0] != want {
		t.Errorf("check of isSparkly = %q, want only %q", found, want)
	}
}
