// Package tests holds cross-package conformance tests for luatool.
//
// schemasuite_test.go runs the official JSON Schema Test Suite
// (github.com/json-schema-org/JSON-Schema-Test-Suite, found by extdata.JSONSchemaSuite)
// against the value path a tool's schema and input really take: every schema and every
// instance is decoded with jsonvalue.Decode, converted to Lua with bindings.VM.ToLua,
// converted back with bindings.VM.FromLua, and only then compiled with
// schema.Compile and checked with (*schema.Schema).Validate. A case passes
// when the round trip returns the value it was given and the verdict equals the suite's
// "valid".
//
// It proves that (1) the Go <-> Lua conversion loses nothing a validator can observe:
// [] stays distinct from {}, null survives as json.null, numbers, strings and nesting
// come back unchanged; and (2) the engine's compiler and validator agree with the
// specification on every required draft 2020-12 case, and on every draft-07 case when
// a schema declares "$schema": "http://json-schema.org/draft-07/schema#" (the draft-07
// files mostly lack $schema, so it is added to object roots; without it, array-form
// "items", "additionalItems" and draft-07 "$ref" semantics fail, so the draft-07 run
// shows that $schema is honoured).
//
// There are no exceptions: every case that runs must agree. (jsonschema/v5, which
// DESIGN.md first named, got 8 draft 2020-12 cases wrong: an empty enum accepted
// everything, and one $dynamicRef scope was wrong. That is why the engine uses v6.)
//
// Left out, and counted as skipped with a reason: the optional/ directory;
// refRemote.json; groups whose schema fails to compile because it needs a document
// the compiler does not hold, since the engine has no file or network loader by design
// ("remote refs" when that document is on the suite's server http://localhost:1234,
// which the suite only provides to implementations that serve remotes/; otherwise a
// remote metaschema or $ref target unknown to the compiler, listed by name); and
// instances holding an integer beyond 2^53, which jsonvalue.Decode rejects by design
// (listed by name; the required tests have none). A schema that merely uses
// localhost:1234 as its own $id is self-contained and runs.
//
// Without the suite the tests skip, saying how to get it; CI sets
// LUATOOL_REQUIRE_TEST_DATA=1, under which a missing suite is a failure.
package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine/schema"
	"github.com/luatool/luatool/internal/extdata"
	"github.com/luatool/luatool/internal/jsonvalue"
)

const (
	// remoteServer is where the suite's remote references point.
	remoteServer = "localhost:1234"
	draft7URI    = "http://json-schema.org/draft-07/schema#"
)

// Skip reasons, used as keys of the summary.
const (
	reasonRemoteRef    = "remote refs"
	reasonRemoteLoad   = "needs a remote document unknown to the compiler"
	reasonBeyond2Pow53 = "integer beyond 2^53 rejected by jsonvalue.Decode"
)

// A suiteGroup is one entry of a suite file: a schema and the instances tested with it.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []suiteCase     `json:"tests"`
}

type suiteCase struct {
	Description string          `json:"description"`
	Data        json.RawMessage `json:"data"`
	Valid       bool            `json:"valid"`
}

// suiteTally counts cases for the summary line.
type suiteTally struct {
	run, agree int
	skipped    map[string][]string // reason -> case names
}

func (s *suiteTally) skip(t *testing.T, reason, detail string) {
	s.skipped[reason] = append(s.skipped[reason], t.Name())
	t.Skipf("%s: %s", reason, detail)
}

func (s *suiteTally) skippedCount() int {
	n := 0
	for _, names := range s.skipped {
		n += len(names)
	}
	return n
}

func TestSchemaSuiteDraft2020(t *testing.T) {
	runSchemaSuite(t, "draft2020-12", "")
}

// TestSchemaSuiteDraft7 runs the draft-07 tests with "$schema" set to the draft-07
// metaschema on every object root that lacks it, so that the engine (whose default is
// draft 2020-12) must honour $schema to pass.
func TestSchemaSuiteDraft7(t *testing.T) {
	runSchemaSuite(t, "draft7", draft7URI)
}

// runSchemaSuite runs tests/<draft>/*.json of the suite. When injectSchema is not
// empty it is set as "$schema" on object roots that have none.
func runSchemaSuite(t *testing.T, draft, injectSchema string) {
	dir := filepath.Join(extdata.JSONSchemaSuite(t), "tests", draft)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s (err %v): is the JSON Schema Test Suite checkout complete?", dir, err)
	}
	sort.Strings(files)

	vm := bindings.NewVM(bindings.Config{})
	defer vm.Close()
	tally := &suiteTally{skipped: map[string][]string{}}

	for _, file := range files {
		name := filepath.Base(file)
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var groups []suiteGroup
			if err := json.Unmarshal(raw, &groups); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, g := range groups {
				t.Run(g.Description, func(t *testing.T) {
					runGroup(t, vm, tally, name, g, injectSchema)
				})
			}
		})
	}

	summary := fmt.Sprintf("%s through Lua: %d agree, %d skipped", draft, tally.agree, tally.skippedCount())
	if len(tally.skipped) > 0 {
		var parts []string
		for _, reason := range sortedKeys(tally.skipped) {
			parts = append(parts, fmt.Sprintf("%d %s", len(tally.skipped[reason]), reason))
		}
		summary += ": " + strings.Join(parts, ", ")
	}
	if tally.run == 0 {
		t.Errorf("no case of %s ran: is the JSON Schema Test Suite checkout complete?", dir)
	}
	lines := []string{extdata.Cases(tally.run, summary)}
	// Remote refs are left out by design; every other skip is listed by name so that a
	// reader sees which parts of the specification it costs.
	for _, reason := range sortedKeys(tally.skipped) {
		if reason == reasonRemoteRef {
			continue
		}
		for _, c := range tally.skipped[reason] {
			lines = append(lines, fmt.Sprintf("  skipped (%s): %s", reason, c))
		}
	}
	for _, line := range lines {
		t.Log(line)
	}
	suiteSummaries = append(suiteSummaries, lines...)
}

// suiteSummaries collects the summary lines of the suite tests for
// TestSchemaSuiteSummary.
var suiteSummaries []string

// TestSchemaSuiteSummary prints the summaries of the suite tests above it to stdout. It
// comes after them so that, with go test -v, the counts close the output instead of
// preceding the long list of subtest results.
func TestSchemaSuiteSummary(t *testing.T) {
	if len(suiteSummaries) == 0 {
		t.Skip("no suite test ran before this one")
	}
	for _, line := range suiteSummaries {
		t.Log(line)
		fmt.Println(line)
	}
}

// runGroup compiles one group's schema after a Lua round trip and checks each case.
func runGroup(t *testing.T, vm *bindings.VM, tally *suiteTally, file string, g suiteGroup, injectSchema string) {
	var skipReason, skipDetail string
	if file == "refRemote.json" {
		skipReason, skipDetail = reasonRemoteRef, "the whole file tests remote references"
	}

	var compiled *schema.Schema
	if skipReason == "" {
		doc, err := jsonvalue.Decode(g.Schema)
		if err != nil {
			t.Fatalf("decoding the schema: %v", err)
		}
		if m, ok := doc.(map[string]any); ok && injectSchema != "" {
			if _, has := m["$schema"]; !has {
				m["$schema"] = injectSchema
			}
		}
		doc = luaRoundTrip(t, vm, "schema", doc)
		compiled, err = schema.Compile(doc)
		if err != nil {
			switch {
			case !needsRemoteLoad(err):
				t.Fatalf("compiling %s: %v", g.Schema, err)
			case strings.Contains(err.Error(), remoteServer):
				skipReason, skipDetail = reasonRemoteRef, err.Error()
			default:
				skipReason, skipDetail = reasonRemoteLoad, err.Error()
			}
		}
	}

	for _, c := range g.Tests {
		t.Run(c.Description, func(t *testing.T) {
			if skipReason != "" {
				tally.skip(t, skipReason, skipDetail)
			}
			inst, err := jsonvalue.Decode(c.Data)
			if err != nil {
				if strings.Contains(err.Error(), "2^53") {
					tally.skip(t, reasonBeyond2Pow53, err.Error())
				}
				t.Fatalf("decoding instance %s: %v", c.Data, err)
			}
			inst = luaRoundTrip(t, vm, "instance", inst)
			tally.run++
			verr := compiled.Validate(inst)
			got := verr == nil
			switch {
			case got != c.Valid:
				t.Errorf("schema %s\ninstance %s\nsuite says valid=%v, engine says valid=%v (%v)",
					g.Schema, c.Data, c.Valid, got, verr)
			default:
				tally.agree++
			}
		})
	}
}

// luaRoundTrip takes v to Lua and back and fails the test unless it comes back equal.
// It returns the value that came back, so that what is validated is what Lua gave.
func luaRoundTrip(t *testing.T, vm *bindings.VM, what string, v any) any {
	t.Helper()
	lv, err := vm.ToLua(v)
	if err != nil {
		t.Fatalf("%s to Lua: %v", what, err)
	}
	back, err := vm.FromLua(lv)
	if err != nil {
		t.Fatalf("%s from Lua: %v", what, err)
	}
	if !reflect.DeepEqual(v, back) {
		t.Fatalf("%s changed on its way through Lua:\n  before %#v\n  after  %#v", what, v, back)
	}
	return back
}

// needsRemoteLoad reports whether a compile error comes from the compiler trying to
// load a document it does not hold, a $ref target or a $schema metaschema: the
// engine's loader refuses every such load with this message.
func needsRemoteLoad(err error) bool {
	return strings.Contains(err.Error(), "a schema may refer only to itself")
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
