package tests

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
)

// TestArchitecturePipeline keeps the order of a call one fact: the architecture
// document's numbered steps, the list in engine/doc.go and the numbered step
// comments of engine/pipeline.go name the same steps in the same order, and a call
// through the engine passes the steps it can be seen to pass in that order.
func TestArchitecturePipeline(t *testing.T) {
	steps := numberedSteps(t, architectureDoc, architectureSection(t, "The order of a call"), `(?m)^(\d+)\. \*\*([^*]+)\*\*`)
	if len(steps) < 10 {
		t.Fatalf("%s lists %d steps of a call: is the test reading the right section?", architectureDoc, len(steps))
	}
	for _, other := range []struct{ file, pattern string }{
		{"../engine/doc.go", `(?m)^//\s+(\d+)\. ([^:;,.(]+)[:;,.(]`},
		{"../engine/pipeline.go", `(?m)^\s*// (\d+)\. ([^:;,.(]+)[:;,.(]`},
	} {
		src, err := os.ReadFile(other.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := numberedSteps(t, other.file, string(src), other.pattern); !reflect.DeepEqual(got, steps) {
			t.Errorf("%s numbers the steps of a call\n  %q\n%s numbers them\n  %q", other.file, got, architectureDoc, steps)
		}
	}
	t.Run("observed", func(t *testing.T) { observePipeline(t, steps) })
}

// numberedSteps reads the steps numbered 1 to n from text, in the order of their
// numbers, failing on a number given twice or missing.
func numberedSteps(t *testing.T, file, text, pattern string) []string {
	t.Helper()
	byNumber := map[int]string{}
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		if prev, dup := byNumber[n]; dup {
			t.Fatalf("%s numbers two steps %d: %q and %q", file, n, prev, m[2])
		}
		byNumber[n] = strings.TrimSpace(m[2])
	}
	steps := make([]string, len(byNumber))
	for n, name := range byNumber {
		if n < 1 || n > len(steps) {
			t.Fatalf("%s numbers a step %d (%q) of %d steps", file, n, name, len(steps))
		}
		steps[n-1] = name
	}
	return steps
}

// stepRecorder notes the steps a call passes, named as the architecture document
// names them.
type stepRecorder struct {
	mu     sync.Mutex
	passed []string
}

func (r *stepRecorder) pass(step string) {
	r.mu.Lock()
	r.passed = append(r.passed, step)
	r.mu.Unlock()
}

func (r *stepRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	passed := r.passed
	r.passed = nil
	return passed
}

// recordingHook is a hook that notes that its event's step was passed.
type recordingHook struct {
	event hooks.Event
	step  string
	rec   *stepRecorder
}

func (h recordingHook) Event() hooks.Event     { return h.event }
func (h recordingHook) Matcher() string        { return "" }
func (h recordingHook) Name() string           { return "record " + string(h.event) }
func (h recordingHook) Timeout() time.Duration { return 0 }
func (h recordingHook) Run(context.Context, *hooks.Input) (hooks.Decision, error) {
	h.rec.pass(h.step)
	return hooks.Decision{}, nil
}

// observePipeline runs calls through an engine whose tool, hooks and middleware note
// each step they see, and checks the order against steps: the steps with code of
// their own in the order they are listed, the others by where a call that fails in
// them stops.
func observePipeline(t *testing.T, steps []string) {
	index := map[string]int{}
	for i, s := range steps {
		index[s] = i
	}
	// The steps the test knows how to see: if the document renames one, the test
	// says which.
	const (
		lookup, abort, schema, validate = "lookup", "abort check", "schema", "validateInput"
		pre, permissions, call, output  = "PreToolUse hooks and middleware", "permissions", "call", "output check"
		post, mapResult, persistence    = "PostToolUse hooks", "mapResult", "persistence"
	)
	for _, s := range []string{lookup, abort, schema, validate, pre, permissions, call, output, post, mapResult, persistence} {
		if _, ok := index[s]; !ok {
			t.Fatalf("%s names no step %q", architectureDoc, s)
		}
	}
	before := func(a, b string) {
		t.Helper()
		if index[a] >= index[b] {
			t.Errorf("the engine runs %q before %q; %s lists them the other way", a, b, architectureDoc)
		}
	}

	rec := &stepRecorder{}
	tool := engine.ToolDef{
		Name:               "Steps",
		Prompt:             func(context.Context, engine.PromptOptions) (string, error) { return "notes the steps of its call", nil },
		MaxResultSizeChars: 100,
		InputSchema: map[string]any{"type": "object", "required": []any{"size"}, "additionalProperties": false,
			"properties": map[string]any{"size": map[string]any{"type": "integer"}}},
		OutputSchema: map[string]any{"type": "object", "required": []any{"text"},
			"properties": map[string]any{"text": map[string]any{"type": "string"}}},
		ValidateInput: func(context.Context, map[string]any, *engine.CallContext) (engine.ValidationResult, error) {
			rec.pass(validate)
			return engine.ValidationResult{Valid: true}, nil
		},
		CheckPermissions: func(context.Context, map[string]any, *engine.CallContext) (engine.PermissionResult, error) {
			rec.pass(permissions)
			return engine.PermissionResult{Behavior: rules.Allow}, nil
		},
		Call: func(_ context.Context, input map[string]any, _ *engine.CallContext) (*engine.ToolResult, error) {
			rec.pass(call)
			size, _ := input["size"].(float64)
			if size < 0 {
				return &engine.ToolResult{Data: map[string]any{"no text": true}}, nil
			}
			return &engine.ToolResult{Data: map[string]any{"text": strings.Repeat("x", int(size))}}, nil
		},
		MapResult: func(_ context.Context, data any, _ string) (engine.Content, error) {
			rec.pass(mapResult)
			return engine.Text("mapped " + data.(map[string]any)["text"].(string)), nil
		},
	}
	e, err := engine.New(engine.Options{
		Tools:      []engine.ToolDef{tool},
		Cwd:        t.TempDir(),
		ResultsDir: t.TempDir(),
		Hooks: []hooks.Hook{
			recordingHook{hooks.PreToolUse, pre, rec},
			recordingHook{hooks.PostToolUse, post, rec},
			recordingHook{hooks.PostToolUseFailure, "PostToolUseFailure", rec},
		},
		Middleware: []hooks.Middleware{func(next hooks.CallHandler) hooks.CallHandler {
			return func(ctx context.Context, c *hooks.Call) hooks.Decision {
				rec.pass(pre)
				return next(ctx, c)
			}
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	use := func(ctx context.Context, name, input string) *engine.Result {
		return e.Call(ctx, engine.ToolUse{ID: "toolu_steps", Name: name, Input: []byte(input)})
	}

	// A call that succeeds passes every step with code of its own, in order, and its
	// persisted file holds what mapResult made of the data.
	r := use(context.Background(), "Steps", `{"size": 200}`)
	if r.Stage != engine.StageDone {
		t.Fatalf("the call stopped at %s: %s", r.Stage, r.Block.Content.String())
	}
	passed := rec.take()
	want := []string{validate, pre, pre, permissions, call, post, mapResult}
	if !reflect.DeepEqual(passed, want) {
		t.Fatalf("the call passed %q, want %q", passed, want)
	}
	for i := 1; i < len(passed); i++ {
		if passed[i] != passed[i-1] {
			before(passed[i-1], passed[i])
		}
	}
	if r.PersistedPath == "" {
		t.Fatalf("a result of 207 characters over a threshold of 100 was not persisted: %q", r.Block.Content.String())
	}
	if saved, err := os.ReadFile(r.PersistedPath); err != nil || !strings.HasPrefix(string(saved), "mapped x") {
		t.Errorf("the persisted file holds %.20q (%v), not mapResult's content", saved, err)
	}
	before(mapResult, persistence)

	// Data that breaks the outputSchema stops after the call and before the
	// PostToolUse hooks: the failure hooks see it.
	r = use(context.Background(), "Steps", `{"size": -1}`)
	if passed := rec.take(); r.Stage != engine.StageResult || !reflect.DeepEqual(passed, []string{validate, pre, pre, permissions, call, "PostToolUseFailure"}) {
		t.Errorf("bad output: stage %s, passed %q", r.Stage, passed)
	}
	before(call, output)
	before(output, post)

	// Without code of their own, the first steps show their order by where a call
	// that fails in several of them stops.
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	stops := []struct {
		ctx         context.Context
		name, input string
		stage       engine.Stage
		first, then string
	}{
		{cancelled, "Nope", `{"size": "many"}`, engine.StageLookup, lookup, abort},
		{cancelled, "Steps", `{"size": "many"}`, engine.StageAbort, abort, schema},
		{context.Background(), "Steps", `{"size": "many"}`, engine.StageInput, schema, validate},
	}
	for _, s := range stops {
		r := use(s.ctx, s.name, s.input)
		if passed := rec.take(); r.Stage != s.stage || len(passed) != 0 {
			t.Errorf("%s %s: stopped at %s having passed %q; want %s before any tool code", s.name, s.input, r.Stage, passed, s.stage)
		}
		before(s.first, s.then)
	}
}
