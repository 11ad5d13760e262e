package luatest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/rules"
)

// caseEnv is what t of one case reaches: its root, its engine and its stubs.
type caseEnv struct {
	ctx   context.Context
	root  string
	eng   *engine.Engine
	stubs *caseStubs
	calls atomic.Int64
}

// table builds t for a VM.
func (c *caseEnv) table(vm *bindings.VM) *lua.LTable {
	L := vm.L
	t := L.NewTable()
	t.RawSetString("root", lua.LString(c.root))
	methods := map[string]lua.LGFunction{
		"path":  c.luaPath,
		"write": c.luaWrite,
		"read":  c.luaRead,
		"call":  c.luaCall,
		"stub":  c.luaStub,
	}
	for name, fn := range methods {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}

// inRoot resolves a path relative to the root, refusing one that leaves it.
func (c *caseEnv) inRoot(args bindings.Args, n int) string {
	rel := args.String(n)
	p := filepath.Join(c.root, rel)
	if filepath.IsAbs(rel) || (p != c.root && !strings.HasPrefix(p, c.root+string(filepath.Separator))) {
		args.Error(n, fmt.Sprintf("%q is not a path inside the test root", rel))
	}
	return p
}

func (c *caseEnv) luaPath(L *lua.LState) int {
	L.Push(lua.LString(c.inRoot(bindings.NewArgs(L, "t:path"), 2)))
	return 1
}

func (c *caseEnv) luaWrite(L *lua.LState) int {
	args := bindings.NewArgs(L, "t:write")
	p := c.inRoot(args, 2)
	content := args.String(3)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		L.RaiseError("t:write: %v", err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		L.RaiseError("t:write: %v", err)
	}
	return 0
}

func (c *caseEnv) luaRead(L *lua.LState) int {
	p := c.inRoot(bindings.NewArgs(L, "t:read"), 2)
	b, err := os.ReadFile(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		L.Push(lua.LNil)
	case err != nil:
		L.RaiseError("t:read: %v", err)
	default:
		L.Push(lua.LString(b))
	}
	return 1
}

// luaCall is t:call(name, input, opts): one call through the pipeline.
func (c *caseEnv) luaCall(L *lua.LState) int {
	args := bindings.NewArgs(L, "t:call")
	vm := bindings.VMOf(L)
	name := args.String(2)
	input := []byte("{}")
	if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		v, err := vm.FromLua(args.Table(3))
		if err != nil {
			args.Error(3, "input is not a JSON value: "+err.Error())
		}
		if input, err = json.Marshal(v); err != nil {
			args.Error(3, err.Error())
		}
	}
	answer, id := "", fmt.Sprintf("toolu_test_%d", c.calls.Add(1))
	cl := &stubClient{stubs: c.stubs}
	if L.GetTop() >= 4 && L.Get(4) != lua.LNil {
		opts := args.Options(4, "answer", "id", "client")
		answer = opts.String("answer", "")
		id = opts.String("id", id)
		if t := opts.Table("client"); t != nil {
			cl = newStubClient(L, t, c.stubs)
		}
		if answer != "" && answer != "allow" && answer != "deny" {
			args.Error(4, fmt.Sprintf(`answer must be "allow" or "deny", got %q`, answer))
		}
	}
	asked, protected := false, ""
	callbacks := engine.Callbacks{Client: cl, CanUseTool: func(_ context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		asked = true
		if req.Protected {
			protected = req.Message
		}
		if answer == "allow" {
			return engine.PermissionDecision{Behavior: rules.Allow}, nil
		}
		return engine.PermissionDecision{Behavior: rules.Deny}, nil
	}}
	ctx := bindings.WithStubs(engine.WithCallbacks(c.ctx, callbacks), c.stubs)
	r := c.eng.Call(ctx, engine.ToolUse{ID: id, Name: name, Input: input})
	// A tool breaking its own outputSchema is a bug in the tool, not an outcome to
	// assert on: the case fails at this t:call.
	var oe *engine.OutputError
	if errors.As(r.Err, &oe) {
		L.RaiseError("%s", oe.Error())
	}
	out := L.NewTable()
	out.RawSetString("text", lua.LString(r.Block.Content.String()))
	out.RawSetString("isError", lua.LBool(r.Block.IsError))
	out.RawSetString("stage", lua.LString(r.Stage))
	out.RawSetString("asked", lua.LBool(asked))
	if protected != "" {
		out.RawSetString("protected", lua.LString(protected))
	}
	data, err := vm.ToLua(r.Data)
	if err != nil {
		L.RaiseError("t:call: %s returned data that cannot reach Lua: %v", name, err)
	}
	out.RawSetString("data", data)
	blocks, err := vm.ToLua(contentValue(r.Block.Content))
	if err != nil {
		L.RaiseError("t:call: %s returned content that cannot reach Lua: %v", name, err)
	}
	out.RawSetString("content", blocks)
	log := L.NewTable()
	for _, line := range r.Log {
		log.Append(lua.LString(line))
	}
	out.RawSetString("log", log)
	// messages is there when the tool sent any, so that a test comparing the
	// whole result of a tool that sends none is unchanged.
	if messages, err := cl.messagesTable(vm); err != nil {
		L.RaiseError("t:call: %s logged data that cannot reach Lua: %v", name, err)
	} else if messages != nil {
		out.RawSetString("messages", messages)
	}
	L.Push(out)
	return 1
}
