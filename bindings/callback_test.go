package bindings

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// A Lua function handed to a Go function runs while that function runs: with its
// arguments copied into Lua and its results converted back, the same through a
// function a host function returned.
func TestLuaFunctionHandedToGoRunsDuringItsCall(t *testing.T) {
	m := &Module{Name: "host", Pure: true, Values: map[string]any{
		"each": func(items []string, fn func(string, int) (string, error)) ([]string, error) {
			var out []string
			for i, s := range items {
				r, err := fn(s, i)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
			return out, nil
		},
		"apply": func(fn any) any { return fn.(func(...any) []any)(map[string]int{"n": 2})[0] },
		"maker": func() func(func() string) string { return func(f func() string) string { return "made " + f() } },
		"once":  func(fn func() string) string { return fn() },
	}}
	vm := newTestVM(t, Config{Modules: []*Module{m}})
	got := eval(t, vm, `local host = require("host")
local r = host.each({"a", "b"}, function(s, i) return s:upper() .. i end)
local n = host.apply(function(t) return t.n * 21 end)
return table.concat(r, ",") .. " " .. n .. " " .. host.maker()(function() return "inside" end)`)
	if want := "A0,B1 42 made inside"; got.String() != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A Lua error is the error result of a function type that has one; otherwise it
	// is raised in the script, which pcall catches.
	got = eval(t, vm, `local host = require("host")
local r, err = host.each({"x"}, function() error("no x here") end)
local ok, err2 = pcall(host.once, function() error("not once") end)
return tostring(r) .. "|" .. tostring(err) .. "|" .. tostring(ok) .. "|" .. tostring(err2)`)
	if parts := strings.Split(got.String(), "|"); len(parts) != 4 || parts[0] != "nil" || !strings.Contains(parts[1], "the Lua function handed to host.each") ||
		!strings.Contains(parts[1], "no x here") || parts[2] != "false" || !strings.Contains(parts[3], "not once") {
		t.Errorf("errors: %q", got)
	}
}

// keeper is a module whose keep stores the Lua function it is given and whose wait
// parks the call until released, as a host that keeps a callback and serves another
// call would.
type keeper struct {
	kept    atomic.Pointer[func(string) (string, error)]
	keptRaw atomic.Pointer[func(string) string]
	waiting chan struct{}
	release chan struct{}
}

func newKeeper() (*keeper, *Module) {
	k := &keeper{waiting: make(chan struct{}, 1), release: make(chan struct{})}
	return k, &Module{Name: "host", Values: map[string]any{
		"keep":    func(fn func(string) (string, error)) { k.kept.Store(&fn) },
		"keepRaw": func(fn func(string) string) { k.keptRaw.Store(&fn) },
		"wait":    func() { k.waiting <- struct{}{}; <-k.release },
		"maker": func() func(func(string) (string, error)) {
			return func(fn func(string) (string, error)) { k.kept.Store(&fn) }
		},
	}}
}

// A Lua function a host kept and calls after its call ended, while the state serves
// another call, is refused (issue 26, item 11): it must not run Lua on a state another
// call holds, at the same time as that call. gopher-luar's own conversion ran it.
func TestLuaFunctionKeptPastItsCallIsRefused(t *testing.T) {
	for _, how := range []string{"keep", "maker"} {
		t.Run(how, func(t *testing.T) {
			k, m := newKeeper()
			prog, err := Compile("keeper.lua", []byte(`local host = require("host")
return function(what)
  if what == "keep" then host.keep(function(s) return "ran " .. s end)
  elseif what == "maker" then host.maker()(function(s) return "ran " .. s end)
  elseif what == "keepRaw" then host.keepRaw(function(s) return "ran " .. s end)
  else host.wait() end
end`), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			p := NewPool(prog, Config{Modules: []*Module{m}})
			defer p.Close()
			vm, err := p.Get()
			if err != nil {
				t.Fatal(err)
			}
			for _, what := range []string{how, "keepRaw"} {
				if _, err := vm.Call(&Call{Access: AccessRead}, vm.Main, lua.LString(what)); err != nil {
					t.Fatal(err)
				}
			}
			// Once its call ended the function is refused, even with the state idle.
			if r, err := (*k.kept.Load())("idle"); !errors.Is(err, ErrCallbackEnded) || r != "" {
				t.Errorf("called on the idle state: %q, %v; want ErrCallbackEnded", r, err)
			}
			p.Put(vm)

			other, err := p.Get()
			if err != nil {
				t.Fatal(err)
			}
			if other != vm {
				t.Fatal("the pool did not hand out the same state again")
			}
			done := make(chan error, 1)
			go func() {
				_, err := other.Call(&Call{Access: AccessRead}, other.Main, lua.LString("wait"))
				done <- err
			}()
			<-k.waiting // the other call waits in a host function: its state is free
			r, err := (*k.kept.Load())("late")
			var ce *CallbackError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCallbackEnded) || r != "" {
				t.Errorf("the kept function ran on another call's state: %q, %v", r, err)
			} else if !strings.Contains(err.Error(), "the Lua function handed to host.") || !strings.Contains(err.Error(), "after its call ended") {
				t.Errorf("unclear error: %v", err)
			}
			// Without an error result, calling it panics with the CallbackError.
			func() {
				defer func() {
					if p := recover(); p == nil {
						t.Error("the kept function without an error result ran")
					} else if pe, ok := p.(*CallbackError); !ok || !errors.Is(pe, ErrCallbackEnded) {
						t.Errorf("panicked with %v, want a CallbackError", p)
					}
				}()
				(*k.keptRaw.Load())("late")
			}()
			close(k.release)
			if err := <-done; err != nil {
				t.Errorf("the other call failed: %v", err)
			}
			p.Put(other)
		})
	}
}

// A Lua function called from another goroutine while its call's Lua code runs is
// refused: two goroutines never run Lua on one state at once.
func TestLuaFunctionCalledWhileItsCallRunsIsRefused(t *testing.T) {
	k, m := newKeeper()
	vm := newTestVM(t, Config{Modules: []*Module{m}})
	prog, err := Compile("busy.lua", []byte(`local host = require("host")
return function() host.keep(function(s) return s end) while true do end end`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := vm.Run(prog); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := vm.Call(&Call{Context: ctx, Access: AccessRead}, vm.Main)
		done <- err
	}()
	// Until keep has returned the function may run (the call waits in keep); after,
	// the script loops, and it is refused.
	var err2 error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if kept := k.kept.Load(); kept != nil {
			if _, err2 = (*kept)("x"); errors.Is(err2, ErrCallbackBusy) {
				break
			}
		}
	}
	if !errors.Is(err2, ErrCallbackBusy) {
		t.Errorf("called while the script runs: %v, want ErrCallbackBusy", err2)
	}
	cancel()
	<-done
}

// A function inside a table is not handed to Go: gopher-luar would make it a Go
// function bound to nothing.
func TestLuaFunctionInsideATableIsRefused(t *testing.T) {
	m := &Module{Name: "host", Pure: true, Values: map[string]any{
		"take":  func(v any) string { return "took" },
		"names": func(v map[string]string) int { return len(v) },
	}}
	vm := newTestVM(t, Config{Modules: []*Module{m}})
	_, err := tryEval(vm, `return require("host").take({on = {data = function() end}})`)
	if err == nil || !strings.Contains(err.Error(), "bad argument #1 to 'host.take' (a function inside a table cannot be handed to Go") {
		t.Errorf("error %v", err)
	}
	if got := eval(t, vm, `local host = require("host") return host.take({a = {1, 2}}) .. " " .. host.names({a = "b"})`); got.String() != "took 1" {
		t.Errorf("tables without functions: %q", got)
	}
}
