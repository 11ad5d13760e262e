package env

import (
	"bytes"
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

// redactorOf returns the redactor of secrets, by name.
func redactorOf(t *testing.T, secrets map[string]string) *Redactor {
	t.Helper()
	var vars []Var
	for name, value := range secrets {
		vars = append(vars, Var{Name: name, Value: value, Secret: true})
	}
	env, err := New(vars)
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
// given; Error keeps the error inside. (The engine redacts content's text blocks:
// TestRedactContent.)
func TestRedactorValueError(t *testing.T) {
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
