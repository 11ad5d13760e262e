package engine

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/schema"
)

// minimalDef is a Go-native tool with only the required members.
func minimalDef() ToolDef {
	return ToolDef{
		Name:        "G",
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "prompt", nil },
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}},
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return &ToolResult{Data: "ok"}, nil
		},
	}
}

func mustBuild(t *testing.T, def ToolDef) *Tool {
	t.Helper()
	tool, err := Build(def)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return tool
}

var errMember = errors.New("member failed")

// TestDefaultsCommentIsTheContractTable: the table in the doc comment at the top of
// defaults.go is the rendering of the contract (Members), line for line, so that the
// table people read is the one loaders check tool files against.
func TestDefaultsCommentIsTheContractTable(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "defaults.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc *ast.CommentGroup
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			doc = g.Doc
			break
		}
	}
	if doc == nil {
		t.Fatal("defaults.go has no doc comment on its first const block")
	}
	// The table is the comment's one run of code lines ("//" and a tab).
	var table []string
	runs := 0
	for i, c := range doc.List {
		if !strings.HasPrefix(c.Text, "//\t") {
			continue
		}
		if i == 0 || !strings.HasPrefix(doc.List[i-1].Text, "//\t") {
			runs++
		}
		table = append(table, strings.TrimPrefix(c.Text, "//\t"))
	}
	if runs != 1 {
		t.Fatalf("the doc comment has %d tables (runs of lines starting with //<tab>), want 1", runs)
	}
	want := strings.Split(strings.TrimSuffix(defaultsTable(), "\n"), "\n")
	if got := strings.Join(table, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("the table in defaults.go is not defaultsTable()'s rendering of the contract; it should read:\n%s",
			"//\t"+strings.Join(want, "\n//\t"))
	}
}

func TestBuildDefaultsWhenAbsent(t *testing.T) {
	tool := mustBuild(t, minimalDef())
	checks := []struct {
		member string
		got    any
		want   any
	}{
		{"description", tool.Description(bg, input), "G"},
		{"userFacingName", tool.UserFacingName(bg, input), "G"},
		{"isEnabled", tool.IsEnabled(bg), true},
		{"isReadOnly", tool.IsReadOnly(bg, input), false},
		{"isConcurrencySafe", tool.IsConcurrencySafe(bg, input), false},
		{"isDestructive", tool.IsDestructive(bg, input), false},
		{"isOpenWorld", tool.IsOpenWorld(bg, input), false},
		{"interruptBehavior", tool.InterruptBehavior(bg), defaultInterruptBehavior},
		{"validateInput", tool.ValidateInput(bg, input, &CallContext{}), ValidationResult{Valid: true}},
		{"checkPermissions", tool.CheckPermissions(bg, input, &CallContext{}).Behavior, rules.Ask},
		{"toAutoClassifierInput", tool.ToAutoClassifierInput(bg, input), ""},
		{"maxResultSizeChars", tool.MaxResultSizeChars(), 50000.0},
		{"deferred", tool.Deferred(), false},
		{"renderToolUseMessage", tool.RenderToolUse(bg, input), `G(path: "a")`},
		{"renderToolResultMessage", tool.RenderResult(bg, "x"), ""},
		{"renderToolUseProgressMessage", tool.RenderProgress(bg, []any{1.0}), "working"},
		{"renderToolUseProgressMessage (step)", tool.RenderProgress(bg, map[string]any{"progress": 2.0, "total": 5.0}), "2 of 5"},
		{"renderToolUseProgressMessage (message)", tool.RenderProgress(bg, map[string]any{"progress": 2.0, "message": "reading"}), "reading"},
		{"renderToolUseRejectedMessage", tool.RenderRejected(bg, input), "G was not allowed to run"},
		{"renderToolUseErrorMessage", tool.RenderError(bg, "bad"), "Error: bad"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s absent: got %#v, want %#v", c.member, c.got, c.want)
		}
	}
	if _, ok := tool.GetPath(bg, input); ok {
		t.Error("GetPath ok when absent")
	}
	if _, ok := tool.RuleContent(bg, input); ok {
		t.Error("RuleContent ok when absent")
	}
	if c, err := tool.MapResult(bg, map[string]any{"b": 2.0, "a": 1.0}, "id"); err != nil || c.String() != `{"a":1,"b":2}` {
		t.Errorf("default MapResult = %q, %v", c.String(), err)
	}
}

// TestBuildDefaultsOnError is the "on error" column for Go-native tools.
func TestBuildDefaultsOnError(t *testing.T) {
	def := minimalDef()
	failStr := func(context.Context, map[string]any) (string, error) { return "ignored", errMember }
	failBool := func(context.Context, map[string]any) (bool, error) { return false, errMember }
	failTrue := func(context.Context, map[string]any) (bool, error) { return true, errMember }
	def.Description = failStr
	def.UserFacingName = failStr
	def.IsEnabled = func(context.Context) (bool, error) { return true, errMember }
	def.IsReadOnly = failTrue
	def.IsConcurrencySafe = failTrue
	def.IsDestructive = failBool
	def.IsOpenWorld = failBool
	def.InterruptBehavior = func(context.Context) (string, error) { return "cancel", errMember }
	def.ValidateInput = func(context.Context, map[string]any, *CallContext) (ValidationResult, error) {
		return ValidationResult{Valid: true}, errMember
	}
	def.CheckPermissions = func(context.Context, map[string]any, *CallContext) (PermissionResult, error) {
		return PermissionResult{Behavior: rules.Allow}, errMember
	}
	def.GetPath = failStr
	def.RuleContent = func(context.Context, map[string]any) ([]string, error) { return []string{"ignored"}, errMember }
	def.ToAutoClassifierInput = failStr
	def.MapResult = func(context.Context, any, string) (Content, error) { return Text("ignored"), errMember }
	def.RenderToolUseMessage = failStr
	def.RenderToolResultMessage = func(context.Context, any) (string, error) { return "ignored", errMember }
	def.RenderToolUseProgressMessage = func(context.Context, any) (string, error) { return "ignored", errMember }
	def.RenderToolUseRejectedMessage = failStr
	def.RenderToolUseErrorMessage = func(context.Context, string) (string, error) { return "ignored", errMember }
	tool := mustBuild(t, def)

	checks := []struct {
		member string
		got    any
		want   any
	}{
		{"description", tool.Description(bg, input), "G"},
		{"userFacingName", tool.UserFacingName(bg, input), "G"},
		{"isEnabled", tool.IsEnabled(bg), false},
		{"isReadOnly", tool.IsReadOnly(bg, input), false},
		{"isConcurrencySafe", tool.IsConcurrencySafe(bg, input), false},
		{"isDestructive", tool.IsDestructive(bg, input), true},
		{"isOpenWorld", tool.IsOpenWorld(bg, input), true},
		{"interruptBehavior", tool.InterruptBehavior(bg), "block"},
		{"validateInput valid", tool.ValidateInput(bg, input, &CallContext{}).Valid, false},
		{"checkPermissions", tool.CheckPermissions(bg, input, &CallContext{}).Behavior, rules.Deny},
		{"toAutoClassifierInput", tool.ToAutoClassifierInput(bg, input), ""},
		{"renderToolUseMessage", tool.RenderToolUse(bg, input), `G(path: "a")`},
		{"renderToolResultMessage", tool.RenderResult(bg, "x"), ""},
		{"renderToolUseProgressMessage", tool.RenderProgress(bg, "p"), "p"},
		{"renderToolUseRejectedMessage", tool.RenderRejected(bg, input), "G was not allowed to run"},
		{"renderToolUseErrorMessage", tool.RenderError(bg, "bad"), "Error: bad"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s on error: got %#v, want %#v", c.member, c.got, c.want)
		}
	}
	if v := tool.ValidateInput(bg, input, &CallContext{}); !strings.Contains(v.Message, errMember.Error()) {
		t.Errorf("validateInput on error: message %q lacks the error text", v.Message)
	}
	if p := tool.CheckPermissions(bg, input, &CallContext{}); !strings.Contains(p.Message, errMember.Error()) {
		t.Errorf("checkPermissions on error: message %q lacks the error text", p.Message)
	}
	if _, ok := tool.GetPath(bg, input); ok {
		t.Error("GetPath ok on error")
	}
	if _, ok := tool.RuleContent(bg, input); ok {
		t.Error("RuleContent ok on error")
	}
	if _, err := tool.MapResult(bg, "x", "id"); !errors.Is(err, errMember) {
		t.Errorf("MapResult on error = %v", err)
	}
}

func TestBuildCheckPermissionsAnswers(t *testing.T) {
	tests := []struct {
		result   PermissionResult
		behavior rules.Behavior
	}{
		{PermissionResult{Behavior: rules.Allow}, rules.Allow},
		{PermissionResult{Behavior: rules.Ask}, rules.Ask},
		{PermissionResult{Behavior: rules.Passthrough}, rules.Passthrough},
		{PermissionResult{Behavior: rules.Deny}, rules.Deny},
		{PermissionResult{Behavior: "yes"}, rules.Deny},
		{PermissionResult{}, rules.Deny},
	}
	for _, tt := range tests {
		def := minimalDef()
		def.CheckPermissions = func(context.Context, map[string]any, *CallContext) (PermissionResult, error) { return tt.result, nil }
		p := mustBuild(t, def).CheckPermissions(bg, input, &CallContext{})
		if p.Behavior != tt.behavior {
			t.Errorf("checkPermissions answering %q = %q, want %q", tt.result.Behavior, p.Behavior, tt.behavior)
		}
		if p.Behavior == rules.Deny && p.Message == "" {
			t.Errorf("a deny (from %q) has no message", tt.result.Behavior)
		}
	}
}

func TestBuildDefaultPermissionFollowsIsReadOnly(t *testing.T) {
	def := minimalDef()
	def.IsReadOnly = func(_ context.Context, in map[string]any) (bool, error) { return in["path"] == "r", nil }
	tool := mustBuild(t, def)
	if p := tool.CheckPermissions(bg, map[string]any{"path": "r"}, &CallContext{}); p.Behavior != rules.Allow {
		t.Errorf("read-only input: %s, want allow", p.Behavior)
	}
	if p := tool.CheckPermissions(bg, map[string]any{"path": "w"}, &CallContext{}); p.Behavior != rules.Ask {
		t.Errorf("writing input: %s, want ask", p.Behavior)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*ToolDef)
		want   []string
	}{
		{"no prompt", func(d *ToolDef) { d.Prompt = nil }, []string{"required member prompt is missing"}},
		{"no call", func(d *ToolDef) { d.Call = nil }, []string{"required member call is missing"}},
		{"no schema", func(d *ToolDef) { d.InputSchema = nil }, []string{"required member inputSchema is missing"}},
		{"schema root not object", func(d *ToolDef) { d.InputSchema = map[string]any{"type": "string"} }, []string{"root must be an object schema"}},
		{"bad name", func(d *ToolDef) { d.Name = "9lives" }, []string{`name "9lives" must match`}},
		{"bad alias", func(d *ToolDef) { d.Aliases = []string{"ok", "not ok"} }, []string{`alias "not ok"`}},
		{"negative size", func(d *ToolDef) { d.MaxResultSizeChars = -5 }, []string{"maxResultSizeChars"}},
		{"NaN size", func(d *ToolDef) { d.MaxResultSizeChars = math.NaN() }, []string{"maxResultSizeChars"}},
		{"bad output schema", func(d *ToolDef) { d.OutputSchema = map[string]any{"type": 5.0} }, []string{"outputSchema"}},
		{"everything wrong at once", func(d *ToolDef) { *d = ToolDef{Name: ""} },
			[]string{"required member name is missing", "required member prompt is missing", "required member call is missing", "required member inputSchema is missing"}},
	}
	for _, tt := range tests {
		def := minimalDef()
		tt.modify(&def)
		tool, err := Build(def)
		if err == nil {
			t.Errorf("%s: Build succeeded (%v)", tt.name, tool.Name())
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, w)
			}
		}
	}
}

func TestMaxResultSizeCharsThreshold(t *testing.T) {
	for _, tt := range []struct{ declared, want float64 }{
		{0, 50000},
		{1, 1},
		{100, 100},
		{50000, 50000},
		{1e9, 50000},
		{math.MaxFloat64, 50000},
		{math.Inf(1), math.Inf(1)},
	} {
		def := minimalDef()
		def.MaxResultSizeChars = tt.declared
		if got := mustBuild(t, def).MaxResultSizeChars(); got != tt.want {
			t.Errorf("declared %v: threshold %v, want %v", tt.declared, got, tt.want)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"Read": true, "a": true, "A-b_9": true, strings.Repeat("x", 64): true,
		"git.status": true, "a.b-c_d": true, strings.Repeat("x", 128): true,
		"": false, "9a": false, "_a": false, "-a": false, ".a": false, "a b": false, "a/b": false, "é": false,
		strings.Repeat("x", 129): false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestAPIName(t *testing.T) {
	for name, want := range map[string]string{
		"Read": "Read", "git.status": "git_status", "a.b.c": "a_b_c", strings.Repeat("x", 64): strings.Repeat("x", 64),
	} {
		if got, err := APIName(name); got != want || err != nil {
			t.Errorf("APIName(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := APIName(strings.Repeat("x", 65)); err == nil || !strings.Contains(err.Error(), "has 65 characters") {
		t.Errorf("APIName of 65 characters: %v, want an error naming the length", err)
	}
}

func TestDefaultMapResult(t *testing.T) {
	tests := []struct {
		data any
		want Content
	}{
		{nil, nil},
		{"s", Text("s")},
		{2.5, Text("2.5")},
		{[]any{"x", nil}, Text(`["x",null]`)},
		{map[string]any{"z": 1.0, "a": map[string]any{"c": 1.0, "b": 2.0}}, Text(`{"a":{"b":2,"c":1},"z":1}`)},
	}
	for _, tt := range tests {
		got, err := defaultMapResult(tt.data, nil)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("defaultMapResult(%#v) = %#v, %v; want %#v", tt.data, got, err, tt.want)
		}
	}
	if _, err := defaultMapResult(math.Inf(1), nil); err == nil {
		t.Error("defaultMapResult(+Inf) succeeded")
	}
}

func TestRenderToolUseSummarizesInput(t *testing.T) {
	tool := mustBuild(t, minimalDef())
	got := tool.RenderToolUse(bg, map[string]any{"z": 1.0, "a": strings.Repeat("x", 100), "m": []any{true}})
	if !strings.HasPrefix(got, `G(a: "xxxx`) || !strings.HasSuffix(got, `..., m: [true], z: 1)`) || len(got) > 100 {
		t.Errorf("RenderToolUse = %q", got)
	}
}

// TestRenderToolUseKeepsUTF8Valid exposes a bug: summarizeInput shortens values by
// bytes (v[:57]), which can cut a multi-byte character in half.
func TestRenderToolUseKeepsUTF8Valid(t *testing.T) {
	tool := mustBuild(t, minimalDef())
	got := tool.RenderToolUse(bg, map[string]any{"path": "a" + strings.Repeat("é", 40)})
	if !utf8.ValidString(got) {
		t.Errorf("RenderToolUse = %q, not valid UTF-8", got)
	}
}

func TestContentJSON(t *testing.T) {
	tests := []struct {
		c    Content
		want string
	}{
		{Text("hi"), `"hi"`},
		{nil, `""`},
		{Content{{Type: "text", Text: "a"}, {Type: "text", Text: "b"}}, `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`},
		{Content{{Type: "image", Source: map[string]any{"type": "base64", "media_type": "image/png"}}}, `[{"type":"image","source":{"media_type":"image/png","type":"base64"}}]`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.c)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%#v) = %s, %v; want %s", tt.c, b, err, tt.want)
		}
		var back Content
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("Unmarshal(%s): %v", b, err)
		}
		if back.String() != tt.c.String() {
			t.Errorf("round trip of %s: %q", b, back.String())
		}
	}
	block := ResultBlock{Type: "tool_result", ToolUseID: "id", Content: Text("x"), IsError: true}
	b, _ := json.Marshal(block)
	if string(b) != `{"type":"tool_result","tool_use_id":"id","content":"x","is_error":true}` {
		t.Errorf("ResultBlock JSON = %s", b)
	}
}

func TestStateGetSetDelete(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	s := e.State(bg)
	if _, ok, err := s.Get("k"); ok || err != nil {
		t.Errorf("empty state has k (%v)", err)
	}
	s.Set("k", 1.0)
	if v, ok, _ := s.Get("k"); !ok || v != 1.0 {
		t.Errorf("Get = %v, %v", v, ok)
	}
	if err := s.Set("f", func() {}); err == nil {
		t.Error("a value that is not JSON was stored")
	}
	s.Set("k", nil)
	if _, ok, _ := s.Get("k"); ok {
		t.Error("Set(nil) did not delete")
	}
}

func TestRegistry(t *testing.T) {
	mk := func(name string, aliases ...string) *Tool {
		def := minimalDef()
		def.Name, def.Aliases, def.Source = name, aliases, "go:"+name
		return mustBuild(t, def)
	}
	enabled := func(t *Tool) (bool, error) { return t.enabled(bg) }
	reg, diags := newRegistry([]*Tool{mk("Write"), mk("Read", "Cat"), mk("Grep")}, enabled)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := reg.Names(); !reflect.DeepEqual(got, []string{"Grep", "Read", "Write"}) {
		t.Errorf("Names = %v, want sorted", got)
	}
	if tool, ok := reg.Lookup("Cat"); !ok || tool.Name() != "Read" {
		t.Error("alias lookup failed")
	}
	if _, ok := reg.Lookup("read"); ok {
		t.Error("lookup is case-insensitive; names are exact")
	}
	if s := reg.Suggest("Reed"); s != "Read" {
		t.Errorf("Suggest(Reed) = %q", s)
	}

	// An alias that is another tool's name is ignored, with a warning naming both;
	// the snapshot still serves every tool.
	reg, diags = newRegistry([]*Tool{mk("Read"), mk("Cat", "Read")}, enabled)
	if len(diags) != 1 || diags[0].File != "go:Cat" || !strings.Contains(diags[0].Message, "go:Read") {
		t.Errorf("diagnostics = %v, want one warning on go:Cat naming go:Read", diags)
	}
	if tool, _ := reg.Lookup("Read"); tool == nil || tool.Name() != "Read" {
		t.Error("an alias took over a tool's name")
	}
	if _, ok := reg.Lookup("Cat"); !ok {
		t.Error("the tool with the ignored alias is gone")
	}

	// Two tools claiming one alias: the later one wins, with a warning.
	reg, diags = newRegistry([]*Tool{mk("Old", "Cat"), mk("New", "Cat")}, enabled)
	if tool, _ := reg.Lookup("Cat"); tool == nil || tool.Name() != "New" || len(diags) != 1 {
		t.Errorf("Cat -> %v, diagnostics %v; want New and one warning", tool, diags)
	}

	// A tool whose isEnabled fails is hidden, with a warning that says why.
	reg, diags = newRegistry([]*Tool{mk("Read")}, func(*Tool) (bool, error) { return false, errors.New("boom") })
	if len(reg.Names()) != 0 || len(diags) != 1 || !strings.Contains(diags[0].Message, "isEnabled failed: boom") {
		t.Errorf("names %v, diagnostics %v", reg.Names(), diags)
	}
}

func TestCompileSchemaRoot(t *testing.T) {
	for _, s := range []map[string]any{{}, {"type": "array"}, {"type": []any{"object", "null"}}} {
		if _, err := schema.CompileObject(s); err == nil {
			t.Errorf("schema.CompileObject(%v) succeeded; the root must be type object", s)
		}
	}
	if _, err := schema.CompileObject(map[string]any{"type": "object"}); err != nil {
		t.Error(err)
	}
	if _, err := schema.CompileObject(map[string]any{"type": "object", "$ref": "file:///etc/passwd"}); err == nil {
		t.Error("a $ref to a file compiled")
	}
}
