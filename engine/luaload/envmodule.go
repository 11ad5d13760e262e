package luaload

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine/env"
)

// EnvModuleName is the name of the loader's module of the values the host hands
// tools explicitly: require("env"). A host module of this name is refused.
const EnvModuleName = "env"

// envModule builds the env module. Its answers depend on which tool asks (a value
// may be given to some tools only) and on the member that runs (a secret only to
// call), which only the loader knows; the values are the engine's (engine.Options.Env,
// handed to the loader with each file), so that what the engine redacts and what
// tools read are one set:
//
//	env.get(name)  -- the value, or nil when the tool has none of that name
//	env.names()    -- the names the tool may read, sorted (secrets included)
//
// Neither works while the tool file loads (its name, which decides what it may read,
// is not known until its table is built, and loading must not depend on the values).
// Values that are not secret may be read by every member (a prompt may say which
// units a tool reports in); env.get of a secret in a member other than call is an
// error, since what those members return is shown to people and the model.
func envModule() *bindings.Module {
	return &bindings.Module{
		Name: EnvModuleName,
		Doc:  "values the host hands this tool (settings \"env\", --env): get and names; secrets only in call",
		Funcs: map[string]lua.LGFunction{
			"get":   luaEnvGet,
			"names": luaEnvNames,
		},
	}
}

// envOf returns the env and the name of the tool whose member runs on L's state.
func envOf(L *lua.LState) (*env.Set, string) {
	lt, _ := bindings.VMOf(L).HostValue(runningTool{}).(*luaTool)
	if lt == nil {
		return nil, ""
	}
	return lt.env, lt.name
}

// luaEnvGet is env.get(name).
func luaEnvGet(L *lua.LState) int {
	name := bindings.NewArgs(L, EnvModuleName+".get").String(1)
	env, tool := envOf(L)
	v, ok := env.Lookup(tool, name)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	if v.Secret {
		if c := bindings.CurrentCall(L); c == nil || c.Entry != "call" {
			entry := "this function"
			if c != nil && c.Entry != "" {
				entry = c.Entry
			}
			L.RaiseError("env.get: %s is a secret, which only call() may read, not %s: what the other members return is shown to people and the model", name, entry)
		}
	}
	L.Push(lua.LString(v.Value))
	return 1
}

// luaEnvNames is env.names().
func luaEnvNames(L *lua.LState) int {
	env, tool := envOf(L)
	names := env.Names(tool)
	list := make([]any, len(names))
	for i, n := range names {
		list[i] = n
	}
	lv, err := bindings.VMOf(L).ToLua(list)
	if err != nil {
		L.RaiseError("env.names: %v", err)
	}
	L.Push(lv)
	return 1
}
