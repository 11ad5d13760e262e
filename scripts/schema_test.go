package scripts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
)

// This file compares each standard tool's input schema and flags, field by field,
// with the original's as written in section 5 of
// ../shared/reference/claude-code-tool-contract.md.
//
// Types. The reference writes "num*" and "bool*" for fields that also accept
// numeric and boolean strings; the engine coerces those strings, so in JSON Schema
// they are plain "number" and "boolean". Where the reference says the field is an
// int (Read's offset ≥ 0 and limit > 0) the original is "integer" with those bounds;
// a strict lower bound on an integer (> 0) is written as the inclusive bound it
// implies (≥ 1), which is how ours declares it. Fields the reference gives as bare
// "num*" (Grep's context counts, head_limit, offset; Bash's timeout) are "number"
// with no bounds in the original.
//
// What is compared per property: the JSON type, the default (absent when the
// original has none), the enum, and the inclusive minimum. Descriptions are free
// text and are checked elsewhere (TestToolsLoad).

// origProp is one property of an original schema.
type origProp struct {
	typ  string   // JSON Schema type
	def  any      // default, nil when the original has none
	enum []any    // allowed values, nil when unrestricted
	min  *float64 // inclusive minimum, nil when unbounded
}

// origTool is one original tool: its schema and flags.
type origTool struct {
	props    map[string]origProp
	required []string
	// readOnly is isReadOnly (= isConcurrencySafe for every tool here) for each input.
	readOnly map[string]bool
	// maxChars is the original's maxResultSizeChars (before the engine's cap).
	maxChars float64
	hint     string
}

func fp(f float64) *float64 { return &f }

var (
	str     = origProp{typ: "string"}
	boolean = origProp{typ: "boolean"}
	number  = origProp{typ: "number"}
)

// originals transcribes section 5 of the reference.
var originals = map[string]origTool{
	"Read": { // 5.1
		props: map[string]origProp{
			"file_path": str,
			"offset":    {typ: "integer", min: fp(0)}, // num*, int ≥ 0
			"limit":     {typ: "integer", min: fp(1)}, // num*, int > 0
			"pages":     str,
		},
		required: []string{"file_path"},
		readOnly: map[string]bool{`{}`: true, `{"file_path":"/x"}`: true},
		maxChars: math.Inf(1),
		hint:     "read files, images, PDFs, notebooks",
	},
	"Edit": { // 5.2
		props: map[string]origProp{
			"file_path":   str,
			"old_string":  str,
			"new_string":  str,
			"replace_all": {typ: "boolean", def: false},
		},
		required: []string{"file_path", "old_string", "new_string"},
		readOnly: map[string]bool{`{}`: false, `{"file_path":"/x","old_string":"a","new_string":"b"}`: false},
		maxChars: 100000,
		hint:     "modify file contents in place",
	},
	"Write": { // 5.3
		props:    map[string]origProp{"file_path": str, "content": str},
		required: []string{"file_path", "content"},
		readOnly: map[string]bool{`{}`: false, `{"file_path":"/x","content":"y"}`: false},
		maxChars: 100000,
		hint:     "create or overwrite files",
	},
	"Glob": { // 5.4
		props:    map[string]origProp{"pattern": str, "path": str},
		required: []string{"pattern"},
		readOnly: map[string]bool{`{}`: true, `{"pattern":"**/*.go"}`: true},
		maxChars: 100000,
		hint:     "find files by name pattern or wildcard",
	},
	"Grep": { // 5.5
		props: map[string]origProp{
			"pattern":     str,
			"path":        str,
			"glob":        str,
			"output_mode": {typ: "string", def: "files_with_matches", enum: []any{"content", "files_with_matches", "count"}},
			"-B":          number,
			"-A":          number,
			"-C":          number,
			"context":     number,
			"-n":          {typ: "boolean", def: true},
			"-i":          boolean,
			"type":        str,
			"head_limit":  {typ: "number", def: 250.0},
			"offset":      {typ: "number", def: 0.0},
			"multiline":   {typ: "boolean", def: false},
		},
		required: []string{"pattern"},
		readOnly: map[string]bool{`{}`: true, `{"pattern":"x"}`: true},
		maxChars: 20000,
		hint:     "search file contents with regex (ripgrep)",
	},
	"WebFetch": { // 5.7, with offset as groundtruth-newtools.md records the schema
		props: map[string]origProp{
			"url":    str,
			"prompt": str,
			"offset": {typ: "integer", min: fp(0)},
		},
		required: []string{"url", "prompt"},
		readOnly: map[string]bool{`{}`: true, `{"url":"https://example.com","prompt":"p"}`: true},
		maxChars: 100000,
		hint:     "fetch and extract content from a URL",
	},
	"Bash": { // 5.6
		props: map[string]origProp{
			"command":                   str,
			"timeout":                   number, // ms; no JSON default (120000 is applied in call)
			"description":               str,
			"run_in_background":         boolean,
			"dangerouslyDisableSandbox": boolean,
		},
		required: []string{"command"},
		readOnly: map[string]bool{
			`{}`:                            false,
			`{"command":"ls -la"}`:          true,
			`{"command":"git status"}`:      true,
			`{"command":"cat a | wc -l"}`:   true,
			`{"command":"rm -rf x"}`:        false,
			`{"command":"echo hi > f"}`:     false,
			`{"command":"sed -i s/a/b/ f"}`: false,
		},
		maxChars: 30000,
		hint:     "execute shell commands",
	},
}

// knownSchemaDiffs lists every way ours deliberately or knowingly differs from the
// original, keyed by the difference as schemaDiffs words it, with the reason. The
// test fails on any difference not listed here, and on any listed difference that
// no longer occurs (so the table stays exact).
var knownSchemaDiffs = map[string]string{
	// Grep's counts are declared as non-negative integers; the original accepts any
	// number (num*) and leaves bad values to ripgrep.
	"Grep.-A: type integer, want number":         "counts are integers",
	"Grep.-A: minimum 0, want none":              "negative context rejected by the schema",
	"Grep.-B: type integer, want number":         "counts are integers",
	"Grep.-B: minimum 0, want none":              "negative context rejected by the schema",
	"Grep.-C: type integer, want number":         "counts are integers",
	"Grep.-C: minimum 0, want none":              "negative context rejected by the schema",
	"Grep.context: type integer, want number":    "counts are integers",
	"Grep.context: minimum 0, want none":         "negative context rejected by the schema",
	"Grep.head_limit: type integer, want number": "counts are integers",
	"Grep.head_limit: minimum 0, want none":      "negative limit rejected by the schema",
	"Grep.offset: type integer, want number":     "counts are integers",
	"Grep.offset: minimum 0, want none":          "negative offset rejected by the schema",

	// Read handles text files and notebooks (no images or PDFs), and its hint says so.
	`Read: searchHint "read text files and notebooks", want "read files, images, PDFs, notebooks"`: "our Read reads text files and notebooks, no images or PDFs",
}

// schemaDiffs describes every difference between tool and orig, one line each.
func schemaDiffs(ctx context.Context, name string, tool *engine.Tool, orig origTool) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, name+fmt.Sprintf(format, args...)) }

	s := tool.InputSchema()
	if s["type"] != "object" {
		add(`: type %v, want object`, s["type"])
	}
	if s["additionalProperties"] != false {
		add(`: additionalProperties %v, want false (strict object)`, s["additionalProperties"])
	}
	var req []string
	switch r := s["required"].(type) {
	case []any:
		for _, x := range r {
			req = append(req, fmt.Sprint(x))
		}
	case []string:
		req = r
	}
	if !reflect.DeepEqual(req, orig.required) {
		add(`: required %q, want %q`, req, orig.required)
	}

	props, _ := s["properties"].(map[string]any)
	for _, p := range sortedKeys(props) {
		if _, ok := orig.props[p]; !ok {
			add(`.%s: extra`, p)
		}
	}
	for _, p := range sortedKeys(orig.props) {
		want := orig.props[p]
		got, ok := props[p].(map[string]any)
		if !ok {
			add(`.%s: missing`, p)
			continue
		}
		if got["type"] != want.typ {
			add(`.%s: type %v, want %s`, p, got["type"], want.typ)
		}
		if d := normalize(got["default"]); !reflect.DeepEqual(d, want.def) {
			add(`.%s: default %#v, want %#v`, p, d, want.def)
		}
		if e := normalize(got["enum"]); !reflect.DeepEqual(e, normalize(want.enum)) {
			add(`.%s: enum %v, want %v`, p, e, want.enum)
		}
		gotMin := inclusiveMin(got)
		switch {
		case gotMin == nil && want.min != nil:
			add(`.%s: minimum none, want %v`, p, *want.min)
		case gotMin != nil && want.min == nil:
			add(`.%s: minimum %v, want none`, p, *gotMin)
		case gotMin != nil && *gotMin != *want.min:
			add(`.%s: minimum %v, want %v`, p, *gotMin, *want.min)
		}
	}

	want := orig.maxChars // Infinity: never persisted; otherwise capped by the engine
	if !math.IsInf(want, 1) {
		want = math.Min(want, engine.DefaultMaxResultSizeChars)
	}
	if got := tool.MaxResultSizeChars(); got != want {
		add(`: maxResultSizeChars %v, want %v`, got, want)
	}
	if h := tool.SearchHint(); h != orig.hint {
		add(`: searchHint %q, want %q`, h, orig.hint)
	}
	for _, in := range sortedKeys(orig.readOnly) {
		input, err := decodeInput(in)
		if err != nil {
			add(`: bad test input %s: %v`, in, err)
			continue
		}
		want := orig.readOnly[in]
		if got := tool.IsReadOnly(ctx, input); got != want {
			add(`: isReadOnly(%s) %v, want %v`, in, got, want)
		}
		if got := tool.IsConcurrencySafe(ctx, input); got != want {
			add(`: isConcurrencySafe(%s) %v, want %v`, in, got, want)
		}
	}
	return diffs
}

// inclusiveMin returns a property's lower bound as an inclusive minimum: for an
// integer, exclusiveMinimum n is minimum n+1.
func inclusiveMin(p map[string]any) *float64 {
	if m, ok := toFloat(p["minimum"]); ok {
		return &m
	}
	if m, ok := toFloat(p["exclusiveMinimum"]); ok {
		if p["type"] == "integer" {
			m++
			return &m
		}
		return &m // a strict bound on a number: reported as is
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// normalize turns numbers into float64 and []string into []any, so that schema
// values compare with the literals above whatever Go types the engine chose.
func normalize(v any) any {
	if f, ok := toFloat(v); ok {
		return f
	}
	switch x := v.(type) {
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []any:
		if x == nil {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestSchemasMatchOriginal(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	reg := v.e.Registry()
	seen := map[string]bool{}
	for _, name := range sortedKeys(originals) {
		tool, ok := reg.Lookup(name)
		if !ok {
			t.Errorf("%s not loaded", name)
			continue
		}
		for _, d := range schemaDiffs(ctx, name, tool, originals[name]) {
			if _, known := knownSchemaDiffs[d]; known {
				seen[d] = true
				continue
			}
			t.Errorf("differs from the original: %s", d)
		}
	}
	for _, d := range sortedKeys(knownSchemaDiffs) {
		if !seen[d] {
			t.Errorf("known difference no longer occurs (remove it from knownSchemaDiffs): %s", d)
		}
	}
	if testing.Verbose() {
		var lines []string
		for _, d := range sortedKeys(knownSchemaDiffs) {
			lines = append(lines, d+"  ("+knownSchemaDiffs[d]+")")
		}
		t.Logf("known differences from the original:\n%s", strings.Join(lines, "\n"))
	}
}

func decodeInput(s string) (map[string]any, error) {
	var m map[string]any
	err := json.Unmarshal([]byte(s), &m)
	return m, err
}
