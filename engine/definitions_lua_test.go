package engine_test

import (
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// TestLuaPlainValuesAreHints: a Lua tool's plain-value members are the hints of its
// definition; a function is not one (its answer depends on the input).
func TestLuaPlainValuesAreHints(t *testing.T) {
	e := luaEngine(t, engine.Options{}, map[string]string{
		"status.lua": luaSourceWith(`name = "git.status",`, `userFacingName = "Git status",`, memberPrompt, memberSchema, memberCall,
			`isReadOnly = true,`, `isDestructive = function() return false end,`, `isIdempotent = true,`, `isConcurrencySafe = false,`,
			`searchHint = "working tree status",`, `shouldDefer = true,`, `outputSchema = { type = "string" },`),
	})
	defs, err := e.Definitions(bg)
	if err != nil || len(defs) != 1 {
		t.Fatalf("definitions = %+v, %v", defs, err)
	}
	d := defs[0]
	if d.Name != "git.status" || d.Title != "Git status" || d.Description != "p" || d.SearchHint != "working tree status" ||
		!d.Deferred || d.OutputSchema["type"] != "string" {
		t.Errorf("definition = %+v", d)
	}
	h := d.Hints
	if h.ReadOnly == nil || !*h.ReadOnly || h.Idempotent == nil || !*h.Idempotent || h.ConcurrencySafe == nil || *h.ConcurrencySafe ||
		h.Destructive != nil || h.OpenWorld != nil {
		t.Errorf("hints = %+v", h)
	}
}

func TestIsIdempotentMustBeABoolean(t *testing.T) {
	_, diags := loadLua(t, engine.Options{}, map[string]string{
		"t.lua": luaSourceWith(`name = "T",`, memberPrompt, memberSchema, memberCall, `isIdempotent = function() return true end,`),
	})
	if _, ok := findDiag(diags, diag.SeverityError, "isIdempotent must be a boolean"); !ok {
		t.Errorf("no error for a function isIdempotent:\n%s", diagText(diags))
	}
}
