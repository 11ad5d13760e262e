package luaload

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/feature"
	"github.com/luatool/luatool/engine/srcpos"
	"github.com/luatool/luatool/internal/spell"
)

// A file whose table has kind = "prompt" or kind = "resource" defines one of MCP's
// other two server features instead of a tool:
//
//	return { kind = "prompt", name = "review", description = "...",
//	         arguments = { {name = "file", description = "...", required = true} },
//	         get = function(args, ctx) return "Review " .. args.file end }
//
//	return { kind = "resource", uri = "docs://readme" (or uriTemplate = "notes://{name}"),
//	         name = "readme", description = "...", mimeType = "text/markdown",
//	         read = function(uri, ctx, params) return "# Readme" end }
//
// get returns a string (one user message) or a list of messages {role = "user" or
// "assistant", content = a string or a content block: text, image, audio, resource or
// resource_link, as a tool's mapResult gives them (see contentBlockOf)}. read returns a string (the text),
// or {text = ..., mimeType = ...}, or {blob = base64, mimeType = ...}; params holds a
// template's variables. Either may fail with nil, "message". Their code runs like a
// tool's members, on pooled states under the same limits, but may not touch the
// world: host functions refuse as in the load phase, since nothing asks permission
// for what a client reads through them. The env module gives them nothing.

// featureMembers are the members of each kind of feature file.
var featureMembers = map[string][]string{
	"prompt":   {"kind", "name", "description", "arguments", "get"},
	"resource": {"kind", "uri", "uriTemplate", "name", "description", "mimeType", "read"},
}

// defineFeature reads the table of a prompt or resource file into its definition.
// Every member of the right kind is taken, as for a tool, so that check shows every
// problem at once.
func (lt *luaTool) defineFeature(kind string, tbl *lua.LTable) (engine.ToolDef, []diag.Diagnostic) {
	var diags []diag.Diagnostic
	problem := func(member, format string, args ...any) {
		diags = append(diags, diag.Diagnostic{Pos: srcpos.Pos{File: lt.file, Line: lt.memberLine(member)},
			Severity: diag.SeverityError, Member: member, Message: fmt.Sprintf(format, args...)})
	}
	members := featureMembers[kind]
	var keys []string
	tbl.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			keys = append(keys, string(s))
		} else {
			problem("", "the %s table has a key of type %s; members are named by strings", kind, k.Type())
		}
	})
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasPrefix(k, "_") || slices.Contains(members, k) {
			continue
		}
		msg := fmt.Sprintf("unknown member %q of a %s", k, kind)
		if s := spell.Suggest(k, members); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		problem(k, "%s; private fields must start with _", msg)
	}
	str := func(name string) string {
		switch v := tbl.RawGetString(name).(type) {
		case lua.LString:
			return string(v)
		case *lua.LNilType:
		default:
			problem(name, "%s must be a string, got %s", name, typeName(v))
		}
		return ""
	}
	fn := func(name string) bool {
		switch v := tbl.RawGetString(name); v.Type() {
		case lua.LTFunction:
			return true
		case lua.LTNil:
		default:
			problem(name, "%s must be a function, got %s", name, typeName(v))
		}
		return false
	}
	def := engine.ToolDef{Source: lt.file, MemberLine: lt.memberLine}
	if kind == "prompt" {
		p := feature.PromptDef{Name: str("name"), Description: str("description"), Source: lt.file}
		p.Arguments = lt.promptArguments(tbl.RawGetString("arguments"), problem)
		if fn("get") {
			p.Get = lt.getPrompt
		}
		def.Feature = feature.NewPrompt(p)
		return def, diags
	}
	r := feature.ResourceDef{URI: str("uri"), URITemplate: str("uriTemplate"), Name: str("name"),
		Description: str("description"), MIMEType: str("mimeType"), Source: lt.file}
	if fn("read") {
		r.Read = lt.readResource
	}
	def.Feature = feature.NewResource(r)
	return def, diags
}

// promptArguments reads a prompt's arguments: a list of {name =, description =,
// required =} tables.
func (lt *luaTool) promptArguments(v lua.LValue, problem func(member, format string, args ...any)) []feature.PromptArgument {
	if v == lua.LNil {
		return nil
	}
	list, ok := v.(*lua.LTable)
	if !ok {
		problem("arguments", "arguments must be a list of tables {name =, description =, required =}, got %s", typeName(v))
		return nil
	}
	var out []feature.PromptArgument
	for i := 1; i <= list.Len(); i++ {
		t, ok := list.RawGetInt(i).(*lua.LTable)
		if !ok {
			problem("arguments", "argument %d must be a table {name =, description =, required =}, got %s", i, typeName(list.RawGetInt(i)))
			continue
		}
		var a feature.PromptArgument
		t.ForEach(func(k, val lua.LValue) {
			key, _ := k.(lua.LString)
			switch {
			case key == "name" && val.Type() == lua.LTString:
				a.Name = string(val.(lua.LString))
			case key == "description" && val.Type() == lua.LTString:
				a.Description = string(val.(lua.LString))
			case key == "required" && val.Type() == lua.LTBool:
				a.Required = bool(val.(lua.LBool))
			case key == "name" || key == "description" || key == "required":
				problem("arguments", "argument %d: %s must be a %s, got %s", i, key, map[lua.LString]string{"name": "string", "description": "string", "required": "boolean"}[key], typeName(val))
			default:
				msg := fmt.Sprintf("argument %d: unknown field %s", i, k.String())
				if s := spell.Suggest(k.String(), []string{"name", "description", "required"}); s != "" {
					msg += fmt.Sprintf(" (did you mean %s?)", s)
				}
				problem("arguments", "%s", msg)
			}
		})
		out = append(out, a)
	}
	if n := countKeys(list); n != list.Len() {
		problem("arguments", "arguments must be a list (keys 1 to n), not a table with other keys")
	}
	return out
}

// getPrompt runs get and converts its messages.
func (lt *luaTool) getPrompt(ctx context.Context, args map[string]string, cc *engine.CallContext) ([]feature.PromptMessage, error) {
	var msgs []feature.PromptMessage
	err := lt.invoke(ctx, cc, "get", func(vm *bindings.VM) (memberArgs, error) {
		a := vm.L.CreateTable(0, len(args))
		for k, v := range args {
			a.RawSetString(k, lua.LString(v))
		}
		return argsOf(a, luaContextFor(vm, cc)), nil
	}, func(vm *bindings.VM, out []lua.LValue) error {
		if err := failure(out); err != nil {
			return err
		}
		var err error
		msgs, err = lt.promptMessages(vm, first(out))
		return err
	})
	return msgs, err
}

// promptMessages converts what get returned.
func (lt *luaTool) promptMessages(vm *bindings.VM, v lua.LValue) ([]feature.PromptMessage, error) {
	const want = "a string or a list of messages {role =, content =}"
	if s, ok := v.(lua.LString); ok {
		return []feature.PromptMessage{{Role: "user", Content: engine.ContentBlock{Type: "text", Text: string(s)}}}, nil
	}
	list, ok := v.(*lua.LTable)
	if !ok || list.Len() == 0 {
		return nil, lt.returnError("get", want, v)
	}
	var msgs []feature.PromptMessage
	for i := 1; i <= list.Len(); i++ {
		m, ok := list.RawGetInt(i).(*lua.LTable)
		if !ok {
			return nil, lt.memberError("get", "message %d, which must be a table {role =, content =}, not %s", i, typeName(list.RawGetInt(i)))
		}
		role, _ := m.RawGetString("role").(lua.LString)
		block, err := messageContent(vm, m.RawGetString("content"))
		if err != nil {
			return nil, lt.memberError("get", "a bad message %d: %v", i, err)
		}
		msgs = append(msgs, feature.PromptMessage{Role: string(role), Content: block})
	}
	return msgs, nil
}

// messageContent converts a message's content: a string (text), or one content
// block (see contentBlockOf).
func messageContent(vm *bindings.VM, v lua.LValue) (engine.ContentBlock, error) {
	switch v := v.(type) {
	case lua.LString:
		return engine.ContentBlock{Type: "text", Text: string(v)}, nil
	case *lua.LTable:
		plain, err := vm.FromLua(v)
		if err != nil {
			return engine.ContentBlock{}, fmt.Errorf("content: %w", err)
		}
		b, err := contentBlockOf(plain)
		if err != nil {
			if _, known := blockKeys[b.Type]; known {
				return b, fmt.Errorf("content (%s): %w", b.Type, err)
			}
			return b, fmt.Errorf("content: %w", err)
		}
		return b, nil
	}
	return engine.ContentBlock{}, fmt.Errorf("content must be a string or a content block, got %s", typeName(v))
}

// readResource runs read and converts its contents.
func (lt *luaTool) readResource(ctx context.Context, uri string, params map[string]string, cc *engine.CallContext) (feature.ResourceContents, error) {
	var c feature.ResourceContents
	err := lt.invoke(ctx, cc, "read", func(vm *bindings.VM) (memberArgs, error) {
		p := vm.L.CreateTable(0, len(params))
		for k, v := range params {
			p.RawSetString(k, lua.LString(v))
		}
		return argsOf(lua.LString(uri), luaContextFor(vm, cc), p), nil
	}, func(vm *bindings.VM, out []lua.LValue) error {
		if err := failure(out); err != nil {
			return err
		}
		switch v := first(out).(type) {
		case lua.LString:
			c.Text = string(v)
			return nil
		case *lua.LTable:
			c.MIMEType = lua.LVAsString(v.RawGetString("mimeType"))
			text, blob := v.RawGetString("text"), v.RawGetString("blob")
			switch {
			case text.Type() == lua.LTString && blob == lua.LNil:
				c.Text = string(text.(lua.LString))
				return nil
			case blob.Type() == lua.LTString && text == lua.LNil:
				raw, err := base64.StdEncoding.DecodeString(string(blob.(lua.LString)))
				if err != nil {
					return lt.memberError("read", "a blob that is not base64: %v", err)
				}
				c.Blob = raw
				return nil
			}
		}
		return lt.returnError("read", "a string, {text =, mimeType =} or {blob = base64, mimeType =}", first(out))
	})
	return c, err
}

// failure returns the failure a member (call, get, read) reported with the Lua
// convention nil (or false), "message"; nil when it reported none.
func failure(out []lua.LValue) error {
	if len(out) > 1 && !lua.LVAsBool(out[0]) {
		if msg, ok := out[1].(lua.LString); ok {
			return &CallError{Message: string(msg)}
		}
	}
	return nil
}

// memberError says what a member (get, read) returned that it may not, at the line
// where the member is given.
func (lt *luaTool) memberError(member, format string, args ...any) error {
	return &bindings.ScriptError{Pos: srcpos.Pos{File: lt.file, Line: lt.memberLine(member)}, Message: member + " returned " + fmt.Sprintf(format, args...)}
}

func countKeys(t *lua.LTable) int {
	n := 0
	t.ForEach(func(_, _ lua.LValue) { n++ })
	return n
}
