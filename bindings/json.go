package bindings

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/internal/jsonvalue"
)

const jsonModuleName = "json"

// maxJSONIndent bounds json.encode's indent option: enough for any layout people
// read, too little for the indentation alone to blow up a deeply nested value.
const maxJSONIndent = 8

// openJSON builds the json module, which every VM offers because its sentinels are
// part of the value model: json.null stands for JSON null where Lua's nil would drop
// a key or end an array, and json.array marks a table as an array so that an empty
// one encodes as [] rather than {}.
func (vm *VM) openJSON() *lua.LTable {
	L := vm.L
	t := L.CreateTable(0, 6)
	t.RawSetString("null", vm.null)
	t.RawSetString("array", L.NewFunction(func(L *lua.LState) int {
		tbl := L.OptTable(1, nil)
		if tbl == nil {
			tbl = L.NewTable()
		}
		if tbl.Metatable != lua.LNil && tbl.Metatable != vm.arrayMeta {
			L.ArgError(1, "table already has a metatable")
		}
		tbl.Metatable = vm.arrayMeta
		L.Push(tbl)
		return 1
	}))
	t.RawSetString("isarray", L.NewFunction(func(L *lua.LState) int {
		tbl, ok := L.Get(1).(*lua.LTable)
		L.Push(lua.LBool(ok && tbl.Metatable == vm.arrayMeta))
		return 1
	}))
	t.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		args := NewArgs(L, "json.encode")
		indent := args.Options(2, "indent").Int("indent", 0)
		if indent < 0 || indent > maxJSONIndent {
			args.Error(2, fmt.Sprintf("option 'indent': 0 to %d spaces expected, got %d", maxJSONIndent, indent))
		}
		v, err := vm.FromLua(L.Get(1))
		if err != nil {
			L.RaiseError("json.encode: %s", err.Error())
		}
		b, err := jsonvalue.EncodeIndent(v, strings.Repeat(" ", indent))
		if err != nil {
			L.RaiseError("json.encode: %s", err.Error())
		}
		if len(b) > vm.limits.MaxStringBytes {
			vm.tooLong(L, "json.encode", int64(len(b)))
		}
		L.Push(lua.LString(b))
		return 1
	}))
	t.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		v, err := decodeJSON(L, L.CheckString(1))
		if err != nil {
			L.Push(lua.LNil)
			L.Push(lua.LString("json.decode: " + err.Error()))
			return 2
		}
		lv, err := vm.ToLua(v)
		if err != nil {
			L.Push(lua.LNil)
			L.Push(lua.LString("json.decode: " + err.Error()))
			return 2
		}
		L.Push(lv)
		return 1
	}))
	return t
}

// DecodeJSON parses s into a Lua value for the state of L as json.decode does
// (arrays marked, null as json.null), stopping when the call's context ends first:
// for host functions that hand scripts decoded JSON, such as an HTTP response.
func DecodeJSON(L *lua.LState, s string) (lua.LValue, error) {
	v, err := decodeJSON(L, s)
	if err != nil {
		return nil, err
	}
	return VMOf(L).ToLua(v)
}

// jsonAsideBytes is the size from which json.decode parses on a goroutine of its
// own: parsing is Go code that cannot look at the context, and a document at the
// string limit takes a second or more; set aside, it cannot keep the call past its
// deadline (the parse finishes in the background and is dropped).
const jsonAsideBytes = 1 << 20

// decodeJSON parses s, stopping the call (with the context's error) when its
// context ends first.
func decodeJSON(L *lua.LState, s string) (any, error) {
	ctx := L.Context()
	if len(s) < jsonAsideBytes || ctx == nil {
		return jsonvalue.Decode([]byte(s))
	}
	type parsed struct {
		v   any
		err error
	}
	done := make(chan parsed, 1)
	go func() {
		v, err := jsonvalue.Decode([]byte(s))
		done <- parsed{v, err}
	}()
	select {
	case p := <-done:
		return p.v, p.err
	case <-ctx.Done():
		stopIfDone(L)
		return nil, ctx.Err()
	}
}
