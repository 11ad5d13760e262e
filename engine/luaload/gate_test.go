package luaload

import (
	"context"
	"encoding/json"
	"testing"
	"testing/fstest"
	"time"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// The tools of the slot tests: Burn spins in Lua when asked to (after saying so by
// progress) and otherwise answers at once; Nap says so, then sleeps for a minute.
var slotTools = fstest.MapFS{
	"burn.lua": {Data: []byte(luaSourceWith(`name = "Burn",`, memberPrompt,
		`inputSchema = {type = "object", properties = {spin = {type = "boolean"}}},`,
		`isReadOnly = true, isConcurrencySafe = true,`,
		`call = function(input, ctx) if not input.spin then return "cool" end ctx:progress("burning") while true do end end,`))},
	"nap.lua": {Data: []byte("local time = require('time')\n" + luaSourceWith(`name = "Nap",`, memberPrompt, memberSchema,
		`isReadOnly = true, isConcurrencySafe = true,`,
		`call = function(_, ctx) ctx:progress("napping") time.sleep(60000) return "rested" end,`))},
}

// slotEngine serves slotTools with two Lua slots: one for each of two principals.
func slotEngine(t *testing.T) *engine.Engine {
	t.Helper()
	eng := newTestEngine(t, engine.Options{Timeout: 2 * time.Minute}, Options{MaxConcurrentCalls: 2})
	if diags := eng.Load(engine.Source{Name: "slots", FS: slotTools}); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	return eng
}

// callAs runs a call of name with input for the principal in a goroutine, under
// ctx: the channel gets its text once it ends, and started is sent to when the tool
// reports progress.
func callAs(ctx context.Context, eng *engine.Engine, principal, name, input string, started chan<- struct{}) <-chan string {
	ctx = engine.WithPrincipal(ctx, engine.Principal{Name: principal})
	ctx = engine.WithCallbacks(ctx, engine.Callbacks{OnProgress: func(engine.ProgressEvent) { started <- struct{}{} }})
	done := make(chan string, 1)
	go func() {
		r := eng.Call(ctx, engine.ToolUse{ID: "toolu_" + principal, Name: name, Input: json.RawMessage(input)})
		done <- r.Block.Content.String()
	}()
	return done
}

func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second): // a guard: what is awaited comes at once
		t.Fatalf("%s never came", what)
		var zero T
		return zero
	}
}

// A call that holds a slot, spinning in Lua or not, leaves room for another: a
// spinning call of alice's holds her one slot of the two, and bob's call of the
// same tool runs in his (slots are shared by principal, not by tool); a call of
// alice's asleep in time.sleep holds none, and her next call runs in her only slot.
func TestSlotsLeaveRoom(t *testing.T) {
	for _, c := range []struct {
		name             string
		first, firstArgs string
		other            string
	}{
		{"another principal beside a spinning call", "Burn", `{"spin":true}`, "bob"},
		{"the same principal beside a sleeping call", "Nap", `{}`, "alice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng := slotEngine(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started := make(chan struct{}, 1)
			first := callAs(ctx, eng, "alice", c.first, c.firstArgs, started)
			await(t, started, "alice's "+c.first)
			if got := await(t, callAs(ctx, eng, c.other, "Burn", `{}`, nil), c.other+"'s call"); got != "cool" {
				t.Errorf("%s's Burn: %q", c.other, got)
			}
			select {
			case got := <-first:
				t.Fatalf("alice's %s ended: %q", c.first, got)
			default:
			}
			cancel()
			await(t, first, "alice's "+c.first+", cancelled")
		})
	}
}
