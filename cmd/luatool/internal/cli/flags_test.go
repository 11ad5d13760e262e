package cli

import (
	"context"
	"slices"
	"testing"

	"github.com/luatool/luatool/engine"
)

// TestFlagsAreTheContracts: list and describe show every member of the contract
// that is a flag, by its word in the table's order, and name its JSON field after
// the word: the CLI spells no flag of its own.
func TestFlagsAreTheContracts(t *testing.T) {
	yes := true
	tool, err := engine.Build(engine.ToolDef{
		Name: "All", ShouldDefer: true, InputSchema: map[string]any{"type": "object"},
		Hints:  engine.Hints{ReadOnly: &yes, ConcurrencySafe: &yes, Destructive: &yes, OpenWorld: &yes},
		Prompt: func(context.Context, engine.PromptOptions) (string, error) { return "p", nil },
		Call: func(context.Context, map[string]any, *engine.CallContext) (*engine.ToolResult, error) {
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, m := range engine.Members() {
		if m.Flag != "" {
			words = append(words, m.Flag)
		}
	}
	if len(words) < 5 {
		t.Fatalf("the contract has %d flags: %v", len(words), words)
	}
	flags := (&app{}).flagsOf(tool)
	var got []string
	for _, f := range flags {
		got = append(got, f.word)
	}
	if !slices.Equal(got, words) {
		t.Errorf("flags = %v, want the contract's %v", got, words)
	}
	if s := flags.String(); s != "deferred,read-only,concurrency-safe,destructive,open-world" {
		t.Errorf("flags text = %q", s)
	}
	fields := flags.fields()
	for _, key := range []string{"deferred", "readOnly", "concurrencySafe", "destructive", "openWorld"} {
		if fields[key] != true {
			t.Errorf("JSON field %s = %v, want true (fields %v)", key, fields[key], fields)
		}
	}
}
