package rules

import (
	"strings"
	"testing"
)

// ParseMode accepts exactly the mode names, and explains anything else.
func TestParseMode(t *testing.T) {
	for _, m := range Modes() {
		if got, err := ParseMode(string(m)); got != m || err != nil {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	for in, want := range map[string]string{
		"bypass":             `unknown mode "bypass"; the modes are default, acceptEdits, plan, bypassPermissions, dontAsk`,
		"Plan":               `unknown mode "Plan" (did you mean plan?)`,
		"dontask":            `(did you mean dontAsk?)`,
		"bypassPermission":   `(did you mean bypassPermissions?)`,
		"":                   `unknown mode ""; the modes are`,
		"acceptEdits ":       `(did you mean acceptEdits?)`,
		"auto":               `unknown mode "auto"; the modes are`,
		"bypassPermissions2": `(did you mean bypassPermissions?)`,
	} {
		got, err := ParseMode(in)
		if got != "" || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMode(%q) = %q, %v; want an error containing %q", in, got, err, want)
		}
	}
}
