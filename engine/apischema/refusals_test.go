package apischema

import (
	"strings"
	"testing"
)

func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		want         []string // "API member: text"
	}{
		{"Fine", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`, nil},
		{"Either", `{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}`,
			[]string{"Anthropic inputSchema: input_schema has anyOf at its root, which the Anthropic Messages API refuses"}},
		{"9lives", `{"type":"object"}`,
			[]string{`Gemini name: tool name "9lives" does not start with a letter or an underscore, as the Gemini API requires`}},
		{"bad name!", `{"type":"object"}`, nil}, // the engine's own warning says it
	} {
		got := Refusals(c.name, decode(t, c.schema))
		if len(got) != len(c.want) {
			t.Errorf("%s: %d refusals, want %d: %v", c.name, len(got), len(c.want), got)
			continue
		}
		for i, r := range got {
			if s := r.API + " " + r.Member + ": " + r.Err.Error(); !strings.HasPrefix(s, c.want[i]) {
				t.Errorf("%s: refusal\n%s\nwant it to start with\n%s", c.name, s, c.want[i])
			}
		}
	}
}
