package scripts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/luatool/luatool/scripts"
)

// recordedSchemaDiffs are the ways the schemas of the tools added after the first
// standard set differ from the input schemas the original sends
// (testdata/groundtruth-schemas.json, from the ground truth's "Tool schemas" section),
// descriptions aside: each replaces the recorded value at a path by ours, with the
// reason.
var recordedSchemaDiffs = []struct {
	tool string
	path []string
	ours any
	why  string
}{
	{"TaskUpdate", []string{"properties", "status"}, map[string]any{"type": "string", "enum": []any{"pending", "in_progress", "completed", "deleted"}},
		"one enum of the same four values instead of a union of an enum and a const: a bad value is refused naming all four"},
}

// withoutDescriptions returns v without "description" members (our words, not the
// original's) and "$schema".
func withoutDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == "description" || k == "$schema" {
				continue
			}
			out[k] = withoutDescriptions(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutDescriptions(e)
		}
		return out
	}
	return v
}

// TestNewToolSchemasAsRecorded compares the schemas of NotebookEdit, the task tools
// and TodoWrite with the original's: property names, types, required members,
// enums, bounds, nesting.
func TestNewToolSchemasAsRecorded(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "groundtruth-schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recorded map[string]any
	if err := json.Unmarshal(b, &recorded); err != nil {
		t.Fatal(err)
	}
	for _, d := range recordedSchemaDiffs {
		m := recorded[d.tool].(map[string]any)
		for _, p := range d.path[:len(d.path)-1] {
			m = m[p].(map[string]any)
		}
		m[d.path[len(d.path)-1]] = d.ours
	}
	regs := map[string]bool{}
	for _, fsys := range []bool{false, true} {
		reg := newEngineWith(t, scripts.ToolsWith(scripts.Options{TodoWrite: fsys})).Registry()
		for name, want := range recorded {
			tool, ok := reg.Lookup(name)
			if !ok {
				continue
			}
			regs[name] = true
			// Through JSON, as a model API gets it.
			b, err := json.Marshal(tool.InputSchema())
			if err != nil {
				t.Fatal(err)
			}
			var got any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got, want := withoutDescriptions(got), withoutDescriptions(want); !reflect.DeepEqual(got, want) {
				gb, _ := json.MarshalIndent(got, "", " ")
				wb, _ := json.MarshalIndent(want, "", " ")
				t.Errorf("%s schema:\n%s\nwant\n%s", name, gb, wb)
			}
		}
	}
	if len(regs) != len(recorded) {
		t.Errorf("compared %v of %d tools", regs, len(recorded))
	}
}
