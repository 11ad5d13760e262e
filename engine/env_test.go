package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// NewEnv refuses what cannot be a value for tools, naming where it was given.
func TestNewEnvErrors(t *testing.T) {
	for _, tc := range []struct {
		v    EnvVar
		want string
	}{
		{EnvVar{Name: "1X", Value: "v"}, `"1X" is not a valid name`},
		{EnvVar{Name: "A-B", Value: "v"}, `"A-B" is not a valid name`},
		{EnvVar{Name: "KEY", Value: "short", Secret: true, Source: "s.json:3:5"}, "s.json:3:5: KEY is a secret of 5 bytes; a secret must be at least 8 bytes long"},
		{EnvVar{Name: "KEY", Value: "", Secret: true}, "KEY is a secret of 0 bytes"},
		{EnvVar{Name: "KEY", Value: "v", Tools: []string{"no tool"}}, `KEY: "no tool" is not a tool name`},
	} {
		if _, err := NewEnv([]EnvVar{tc.v}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.v, err, tc.want)
		}
	}
	// A value that is not secret may be short: Claude Code's "DEBUG": "1".
	if _, err := NewEnv([]EnvVar{{Name: "DEBUG", Value: "1"}}); err != nil {
		t.Error(err)
	}
}

// A later value of a name replaces an earlier one; a value for some tools is
// theirs only; a nil Env holds nothing.
func TestEnvLookup(t *testing.T) {
	env, err := NewEnv([]EnvVar{
		{Name: "A", Value: "first"},
		{Name: "B", Value: "b", Tools: []string{"One", "Two"}},
		{Name: "A", Value: "second"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := env.Lookup("Any", "A"); !ok || v.Value != "second" {
		t.Errorf("A = %+v, %v", v, ok)
	}
	if _, ok := env.Lookup("Three", "B"); ok {
		t.Error("B reached a tool it is not for")
	}
	if v, ok := env.Lookup("Two", "B"); !ok || v.Value != "b" {
		t.Errorf("B for Two = %+v, %v", v, ok)
	}
	if got := env.Names("One"); !reflect.DeepEqual(got, []string{"A", "B"}) {
		t.Errorf("names of One: %v", got)
	}
	if got := env.Names("Three"); !reflect.DeepEqual(got, []string{"A"}) {
		t.Errorf("names of Three: %v", got)
	}
	var none *Env
	if _, ok := none.Lookup("T", "A"); ok || none.Names("T") != nil || none.Redactor() != nil {
		t.Error("a nil Env holds something")
	}
	if env.Redactor() != nil {
		t.Error("an Env without secrets has a redactor")
	}
}

// redactorOf returns the redactor of secrets, by name.
func redactorOf(t *testing.T, secrets map[string]string) *Redactor {
	t.Helper()
	var vars []EnvVar
	for name, value := range secrets {
		vars = append(vars, EnvVar{Name: name, Value: value, Secret: true})
	}
	env, err := NewEnv(vars)
	if err != nil {
		t.Fatal(err)
	}
	return env.Redactor()
}

// A secret is replaced as it is and in the forms a tool may have put it in: a JSON
// string, a URL query, a URL path; the longer of two overlapping secrets whole.
func TestRedactorForms(t *testing.T) {
	const key = `k3y/with "quotes"&more`
	r := redactorOf(t, map[string]string{"KEY": key, "INNER": "with \"quo", "PLAIN": "plainsecret"})
	jsonForm, _ := jsonMarshal(key)
	for _, tc := range []struct{ name, in, want string }{
		{"raw", "the key is " + key + ".", "the key is [redacted:KEY]."},
		{"json", `{"key":` + jsonForm + `}`, `{"key":"[redacted:KEY]"}`},
		{"query", "https://api.example/?key=" + url.QueryEscape(key), "https://api.example/?key=[redacted:KEY]"},
		{"path", "https://api.example/" + url.PathEscape(key), "https://api.example/[redacted:KEY]"},
		{"twice", "plainsecret plainsecret", "[redacted:PLAIN] [redacted:PLAIN]"},
		{"inner alone", "a with \"quo b", "a [redacted:INNER] b"},
		{"nothing", "nothing secret here", "nothing secret here"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	var none *Redactor
	if none.String(key) != key {
		t.Error("a nil Redactor changed text")
	}
}

func jsonMarshal(s string) (string, error) {
	b, err := jsonvalue.Encode(s)
	return string(b), err
}

// Value redacts strings and keys at any depth without changing the value it was
// given; Content redacts text blocks only; Error keeps the error inside.
func TestRedactorValueContentError(t *testing.T) {
	r := redactorOf(t, map[string]string{"KEY": "sk-0123456789"})
	data := map[string]any{"list": []any{"a", "sk-0123456789", 3.0}, "sk-0123456789": true, "n": nil}
	got := r.Value(data)
	want := map[string]any{"list": []any{"a", "[redacted:KEY]", 3.0}, "[redacted:KEY]": true, "n": nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Value: %v", got)
	}
	if data["list"].([]any)[1] != "sk-0123456789" {
		t.Error("Value changed its argument")
	}
	c := r.Content(Content{{Type: "text", Text: "x sk-0123456789"}, {Type: "image", Source: map[string]any{"data": "sk-0123456789"}}})
	if c[0].Text != "x [redacted:KEY]" || c[1].Source["data"] != "sk-0123456789" {
		t.Errorf("Content: %+v", c)
	}
	inner := &os.PathError{Op: "open", Path: "/k/sk-0123456789", Err: os.ErrNotExist}
	err := r.Error(fmt.Errorf("wrapped: %w", inner))
	var pe *os.PathError
	if err.Error() != "wrapped: open /k/[redacted:KEY]: file does not exist" || !errors.As(err, &pe) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Error: %v", err)
	}
	plain := errors.New("nothing")
	if r.Error(plain) != plain {
		t.Error("Error wrapped an error with nothing to redact")
	}
}

// The handler redacts a record's message and its attributes, groups and errors
// included, and those given with WithAttrs.
func TestRedactorHandler(t *testing.T) {
	r := redactorOf(t, map[string]string{"KEY": "sk-0123456789"})
	var buf bytes.Buffer
	log := slog.New(r.Handler(slog.NewTextHandler(&buf, nil))).With("fixed", "sk-0123456789")
	log.WithGroup("g").Warn("failed with sk-0123456789", "err", errors.New("bad key sk-0123456789"),
		"nested", slog.GroupValue(slog.String("s", "sk-0123456789")), "n", 3)
	out := buf.String()
	if strings.Contains(out, "sk-0123456789") || strings.Count(out, "[redacted:KEY]") != 4 || !strings.Contains(out, "g.n=3") {
		t.Errorf("logged: %s", out)
	}
}

// The engine redacts a secret from everything a call hands on: the content (also
// when it is persisted), the data, the log, progress, the error and the engine's
// log, the renderings, the description and the message of a permission ask.
func TestPipelineRedactsSecrets(t *testing.T) {
	const key = "sk-0123456789"
	env, err := NewEnv([]EnvVar{{Name: "KEY", Value: key, Secret: true}})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	var progress []any
	var askMessage, askDescription string
	leaky := ToolDef{
		Name: "Leaky", InputSchema: objectSchema(nil),
		Prompt: func(context.Context, PromptOptions) (string, error) { return "uses " + key, nil },
		Description: func(context.Context, map[string]any) (string, error) {
			return "calls with " + key, nil
		},
		RenderToolUseMessage: func(context.Context, map[string]any) (string, error) { return "Leaky(" + key + ")", nil },
		UserFacingName:       func(context.Context, map[string]any) (string, error) { return "", errors.New("name of " + key) },
		CheckPermissions: func(context.Context, map[string]any, *CallContext) (PermissionResult, error) {
			return PermissionResult{Behavior: Ask, Message: "may send " + key}, nil
		},
		Call: func(_ context.Context, in map[string]any, cc *CallContext) (*ToolResult, error) {
			cc.Log("sending " + key)
			cc.Progress(map[string]any{"message": key})
			switch in["mode"] {
			case "fail":
				return nil, errors.New("request with " + key + " failed")
			case "big":
				return &ToolResult{Data: strings.Repeat("x", 60000) + key}, nil
			}
			return &ToolResult{Data: map[string]any{"key": key}, NewMessages: []any{key}, MCPMeta: map[string]any{"k": key}}, nil
		},
	}
	e := newTestEngine(t, Options{
		Tools: []ToolDef{leaky}, Env: env,
		Logger:     slog.New(slog.NewTextHandler(&logged, nil)),
		OnProgress: func(ev ProgressEvent) { progress = append(progress, ev.Data) },
		CanUseTool: func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
			askMessage, askDescription = req.Message, req.Description
			return PermissionDecision{Behavior: Allow}, nil
		},
	})
	tool, _ := e.Registry().Lookup("Leaky")

	r := e.Call(bg, ToolUse{ID: "toolu_1", Name: "Leaky", Input: []byte(`{}`)})
	if name := tool.UserFacingName(bg, nil); name != "Leaky" {
		t.Errorf("user-facing name %q, want the fallback", name)
	}
	checks := map[string]any{
		"content": r.Block.Content.String(), "data": r.Data, "log": r.Log, "newMessages": r.NewMessages,
		"mcpMeta": r.MCPMeta, "progress": progress, "ask message": askMessage, "ask description": askDescription,
		"render": tool.RenderToolUse(bg, nil), "user-facing name failure (engine log)": logged.String(),
	}
	prompt, _ := tool.Prompt(bg, PromptOptions{})
	checks["prompt"] = prompt

	failed := e.Call(bg, ToolUse{ID: "toolu_2", Name: "Leaky", Input: []byte(`{"mode": "fail"}`)})
	checks["error content"], checks["Result.Err"] = failed.Block.Content.String(), failed.Err.Error()
	checks["rendered error"] = tool.RenderError(bg, "request with "+key+" failed")

	big := e.Call(bg, ToolUse{ID: "toolu_3", Name: "Leaky", Input: []byte(`{"mode": "big"}`)})
	persisted, err := os.ReadFile(big.PersistedPath)
	if err != nil {
		t.Fatalf("the big result was not persisted: %v", err)
	}
	checks["persisted file"] = string(persisted)

	for what, v := range checks {
		text := fmt.Sprint(v)
		if strings.Contains(text, key) || !strings.Contains(text, "[redacted:KEY]") {
			if len(text) > 300 {
				text = "..." + text[len(text)-300:]
			}
			t.Errorf("%s: %s", what, text)
		}
	}
}
