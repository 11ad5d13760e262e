package scripts_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"unicode/utf8"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/scripts"
)

// The descriptions of the standard tools are our own words, at the original's length
// and level of detail (docs/compatibility.md, "Descriptions are our own words"). A
// model reads the same amount of guidance from either; a prompt cut to a line, or
// grown to a page, is a different tool to it. testdata/original-description-lengths.json
// holds the lengths of the original's texts, never the texts themselves.

// The bands a description may stray from the original's length, as a fraction of it.
// A property description of a few words may also differ by shortSlack characters,
// since a band of ±35% around 19 characters leaves no room for other words.
const (
	promptTolerance   = 0.25
	propertyTolerance = 0.35
	shortSlack        = 16
)

// noOriginal names the standard tools the original has no counterpart of.
var noOriginal = map[string]bool{"ToolSearch": true}

// originalLengths is testdata/original-description-lengths.json.
type originalLengths struct {
	ClaudeCode string `json:"claude_code"`
	Tools      map[string]struct {
		Prompt     int            `json:"prompt"`
		Properties map[string]int `json:"properties"`
	} `json:"tools"`
}

// band returns the lengths allowed around want: tolerance of it either way, or slack
// characters when that is more.
func band(want int, tolerance float64, slack int) (lo, hi int) {
	d := math.Max(tolerance*float64(want), float64(slack))
	return int(math.Ceil(float64(want) - d)), int(math.Floor(float64(want) + d))
}

// TestDescriptionLengths checks every standard tool of both task list variants: its
// prompt within ±25% of the original's length, each property description within
// ±35% (or a few words), and no tool or property without a recorded length.
func TestDescriptionLengths(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "original-description-lengths.json"))
	if err != nil {
		t.Fatal(err)
	}
	var orig originalLengths
	if err := json.Unmarshal(b, &orig); err != nil {
		t.Fatal(err)
	}
	if orig.ClaudeCode == "" || len(orig.Tools) == 0 {
		t.Fatalf("original-description-lengths.json: no claude_code version or no tools")
	}
	ctx := context.Background()
	seen := map[string]bool{}
	for _, todo := range []bool{false, true} {
		reg := newEngineWith(t, scripts.ToolsWith(scripts.Options{TodoWrite: todo})).Registry()
		for _, name := range reg.Names() {
			if seen[name] || noOriginal[name] {
				continue
			}
			seen[name] = true
			want, ok := orig.Tools[name]
			if !ok {
				t.Errorf("%s: no original length in original-description-lengths.json (Claude Code %s); record it, or list the tool in noOriginal", name, orig.ClaudeCode)
				continue
			}
			tool, _ := reg.Lookup(name)
			prompt, err := tool.Prompt(ctx, engine.PromptOptions{Tools: reg.Names()})
			if err != nil {
				t.Errorf("%s: prompt: %v", name, err)
				continue
			}
			n := utf8.RuneCountInString(prompt)
			if lo, hi := band(want.Prompt, promptTolerance, 0); n < lo || n > hi {
				t.Errorf("%s: prompt is %d characters, the original's (Claude Code %s) %d: keep it within %d-%d (±%.0f%%)",
					name, n, orig.ClaudeCode, want.Prompt, lo, hi, promptTolerance*100)
			}
			props, _ := tool.InputSchema()["properties"].(map[string]any)
			for _, p := range sortedKeys(props) {
				if _, ok := want.Properties[p]; !ok {
					t.Errorf("%s.%s: no original length in original-description-lengths.json", name, p)
				}
			}
			for _, p := range sortedKeys(want.Properties) {
				prop, ok := props[p].(map[string]any)
				if !ok {
					t.Errorf("%s.%s: recorded, but the tool has no such property", name, p)
					continue
				}
				desc, _ := prop["description"].(string)
				n := utf8.RuneCountInString(desc)
				if lo, hi := band(want.Properties[p], propertyTolerance, shortSlack); n < lo || n > hi || desc == "" {
					t.Errorf("%s.%s: description is %d characters, the original's (Claude Code %s) %d: keep it within %d-%d",
						name, p, n, orig.ClaudeCode, want.Properties[p], max(lo, 1), hi)
				}
			}
		}
	}
	var missing []string
	for name := range orig.Tools {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		t.Errorf("%s: recorded in original-description-lengths.json, but no standard tool has that name", name)
	}
}
