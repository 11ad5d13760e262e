package bindings

import (
	"errors"
	"strings"
	"sync"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

type inner struct{ Secret string }

func (inner) Exec() string { return "ran" }

type hostState struct {
	inner
	Name     string
	Count    int    `json:"count"`
	Hidden   string `json:"-"`
	Mu       sync.Mutex
	Ch       chan int
	password string
	Items    map[string]int
}

// Scripts get copies: they cannot overwrite a host struct, call promoted methods,
// lock its mutex or use its channel (E18-E20).
func TestExposedValuesAreCopies(t *testing.T) {
	state := &hostState{Name: "host", Count: 1, Hidden: "h", Ch: make(chan int), password: "pw", Items: map[string]int{"a": 1}}
	state.Secret = "s"
	m := &Module{Name: "host", Values: map[string]any{
		"state": state,
		"get":   func() *hostState { return state },
		"fail":  func() (int, error) { return 0, errors.New("no luck") },
		"small": func(n int8) int8 { return n },
	}}
	vm := newTestVM(t, Config{Modules: []*Module{m}})
	got := eval(t, vm, `local h = require("host")
local s = h.state
local r = {}
r[#r+1] = tostring(s.Name) .. " " .. tostring(s.count) .. " " .. tostring(s.Hidden) .. " " .. tostring(s.Mu) .. " " .. tostring(s.Ch) .. " " .. tostring(s.password)
r[#r+1] = tostring(s.Exec) .. " " .. tostring(s.inner)
s.Name = "changed"
s.Items.a = 99
local g = h.get()
g.Name = "changed too"
r[#r+1] = type(g) .. " " .. tostring(pcall(function() return g ^ {} end))
local n, err = h.fail()
r[#r+1] = tostring(n) .. " " .. tostring(err)
r[#r+1] = tostring(pcall(h.small, 300)) .. " " .. tostring(h.small(-128))
return table.concat(r, "|")`)
	want := "host 1 nil nil nil nil|nil nil|table false|0 no luck|false -128"
	if !strings.HasPrefix(got.String(), "host 1 nil nil nil nil|nil nil|table false") || !strings.Contains(got.String(), "0 no luck") || !strings.HasSuffix(got.String(), "false -128") {
		t.Errorf("got %q, want %q", got, want)
	}
	if state.Name != "host" || state.Items["a"] != 1 || state.password != "pw" {
		t.Errorf("host state changed: %+v", state)
	}
	if !state.Mu.TryLock() {
		t.Error("the host's mutex is locked")
	}
}

// An int8 parameter refuses 300 with an argument error naming the function.
func TestExposedFunctionArgumentsAreRangeChecked(t *testing.T) {
	m := &Module{Name: "host", Values: map[string]any{"small": func(n int8) int8 { return n }}}
	vm := newTestVM(t, Config{Modules: []*Module{m}})
	_, err := tryEval(vm, `return require("host").small(300)`)
	if err == nil || !strings.Contains(err.Error(), "bad argument #1 to 'host.small' (300 does not fit in int8)") {
		t.Errorf("error %v", err)
	}
}

// A value holding a channel cannot be offered at all.
func TestExposingAChannelPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "chan int") {
			t.Errorf("recover() = %v", r)
		}
	}()
	m := &Module{Name: "host", Values: map[string]any{"ch": []chan int{}}}
	NewVM(Config{Modules: []*Module{m}}).Close()
}

// A Go panic in a host function is that call's error: the script may catch it, but
// the state is discarded, and an uncaught one carries the Go stack (F6).
func TestHostPanicBreaksTheStateOnly(t *testing.T) {
	m := &Module{Name: "host",
		Funcs:  map[string]lua.LGFunction{"boom": func(L *lua.LState) int { var m map[string]int; m["x"] = 1; return 0 }},
		Values: map[string]any{"div": func(a, b int) int { return a / b }},
	}
	for _, src := range []string{`require("host").boom()`, `require("host").div(1, 0)`} {
		vm := newTestVM(t, Config{Modules: []*Module{m}})
		_, err := tryEval(vm, src)
		var se *ScriptError
		var hp *HostPanic
		if !errors.As(err, &se) || !errors.As(err, &hp) || !strings.Contains(hp.Stack, "goroutine") || !vm.Broken() {
			t.Errorf("%s: error %v (host panic %v), broken %v", src, err, hp, vm.Broken())
		}
		// Caught by the script's pcall: the call succeeds, the state is still discarded.
		vm = newTestVM(t, Config{Modules: []*Module{m}})
		v, err := tryEval(vm, "local ok, e = pcall(function() "+src+" end) return tostring(ok) .. ' ' .. e")
		if err != nil || !strings.Contains(v.String(), "false") || !strings.Contains(v.String(), "panicked") || !vm.Broken() {
			t.Errorf("%s under pcall: %v %v, broken %v", src, v, err, vm.Broken())
		}
	}
}
