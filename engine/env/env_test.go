package env

import (
	"reflect"
	"strings"
	"testing"
)

// New refuses what cannot be a value for tools, naming where it was given.
func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		v    Var
		want string
	}{
		{Var{Name: "1X", Value: "v"}, `"1X" is not a valid name`},
		{Var{Name: "A-B", Value: "v"}, `"A-B" is not a valid name`},
		{Var{Name: "KEY", Value: "short", Secret: true, Source: "s.json:3:5"}, "s.json:3:5: KEY is a secret of 5 bytes; a secret must be at least 8 bytes long"},
		{Var{Name: "KEY", Value: "", Secret: true}, "KEY is a secret of 0 bytes"},
		{Var{Name: "KEY", Value: "v", Tools: []string{"no tool"}}, `KEY: "no tool" is not a tool name`},
	} {
		if _, err := New([]Var{tc.v}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.v, err, tc.want)
		}
	}
	// A value that is not secret may be short: Claude Code's "DEBUG": "1".
	if _, err := New([]Var{{Name: "DEBUG", Value: "1"}}); err != nil {
		t.Error(err)
	}
}

// A later value of a name replaces an earlier one; a value for some tools is
// theirs only; a nil Set holds nothing.
func TestLookup(t *testing.T) {
	env, err := New([]Var{
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
	var none *Set
	if _, ok := none.Lookup("T", "A"); ok || none.Names("T") != nil || none.Redactor() != nil {
		t.Error("a nil Set holds something")
	}
	if env.Redactor() != nil {
		t.Error("a Set without secrets has a redactor")
	}
}
