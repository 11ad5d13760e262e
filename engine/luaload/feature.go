package luaload

import (
	"context"
	"encoding/base64"
	"errors"
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
//	         arguments = { {name = "file", description = "...", required = true,
//	                        complete = {"main.go", "README.md"}} },
//	         get = function(args, ctx) return "Review " .. args.file end }
//
//	return { kind = "resource", uri = "docs://readme" (or uriTemplate = "notes://{name}"),
//	         name = "readme", description = "...", mimeType = "text/markdown",
//	         complete = { name = function(value, args, ctx) return {...} end },
//	         read = function(uri, ctx, params) return "# Readme" end }
//
// get returns a string (one user message) or a list of messages {role = "user" or
// "assistant", content = a string or a content block: text, image, audio, resource or
// resource_link, as a tool's mapResult gives them (see contentBlockOf)}. read returns a string (the text),
// or {text = ..., mimeType = ...}, or {blob = base64, mimeType = ...}; params holds a
// template's variables. Either may fail with nil, "message". An argument's complete,
// and a template's complete by variable name, say how to complete a value for
// completion/complete: a list of strings (those starting with what was typed are
// offered) or a function (value, args, ctx) returning the list, args being the other
// arguments given. Their code runs like a tool's members, on pooled states under the
// same limits, but may not touch the world: host functions refuse as in the load
// phase, since nothing asks permission for what a client reads through them. The env
// module gives them nothing.

// featureMembers are the members of each kind of feature file.
var featureMembers = map[string][]string{
	"prompt":   {"kind", "name", "description", "arguments", "get"},
	"resource": {"kind", "uri", "uriTemplate", "name", "description", "mimeType", "read", "complete"},
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
	r.Complete = lt.templateCompletions(tbl.RawGetString("complete"), problem)
	if fn("read") {
		r.Read = lt.readResource
	}
	def.Feature = feature.NewResource(r)
	return def, diags
}

// argumentFields are the fields of a prompt's argument.
var argumentFields = []string{"name", "description", "required", "complete"}

// promptArguments reads a prompt's arguments: a list of {name =, description =,
// required =, complete =} tables.
func (lt *luaTool) promptArguments(v lua.LValue, problem func(member, format string, args ...any)) []feature.PromptArgument {
	if v == lua.LNil {
		return nil
	}
	const want = "{name =, description =, required =, complete =}"
	list, ok := v.(*lua.LTable)
	if !ok {
		problem("arguments", "arguments must be a list of tables %s, got %s", want, typeName(v))
		return nil
	}
	var out []feature.PromptArgument
	for i := 1; i <= list.Len(); i++ {
		t, ok := list.RawGetInt(i).(*lua.LTable)
		if !ok {
			problem("arguments", "argument %d must be a table %s, got %s", i, want, typeName(list.RawGetInt(i)))
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
			case key == "complete":
				a.Complete = lt.completion(val, fmt.Sprintf("argument %d: complete", i), problem, "arguments", func(main *lua.LTable) lua.LValue {
					if args, ok := main.RawGetString("arguments").(*lua.LTable); ok {
						if arg, ok := args.RawGetInt(i).(*lua.LTable); ok {
							return arg.RawGetString("complete")
						}
					}
					return lua.LNil
				})
			case key == "name" || key == "description" || key == "required":
				problem("arguments", "argument %d: %s must be a %s, got %s", i, key, map[lua.LString]string{"name": "string", "description": "string", "required": "boolean"}[key], typeName(val))
			default:
				msg := fmt.Sprintf("argument %d: unknown field %s", i, k.String())
				if s := spell.Suggest(k.String(), argumentFields); s != "" {
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

// templateCompletions reads a resource's complete member: a table of completions
// by the name of the template's variable.
func (lt *luaTool) templateCompletions(v lua.LValue, problem func(member, format string, args ...any)) map[string]*feature.Completion {
	if v == lua.LNil {
		return nil
	}
	tbl, ok := v.(*lua.LTable)
	if !ok {
		problem("complete", "complete must be a table {variable = a list of strings or a function}, got %s", typeName(v))
		return nil
	}
	out := map[string]*feature.Completion{}
	tbl.ForEach(func(k, val lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok {
			problem("complete", "complete has a key of type %s; it is keyed by the names of the template's variables", k.Type())
			return
		}
		c := lt.completion(val, fmt.Sprintf("complete.%s", name), problem, "complete", func(main *lua.LTable) lua.LValue {
			if c, ok := main.RawGetString("complete").(*lua.LTable); ok {
				return c.RawGetString(string(name))
			}
			return lua.LNil
		})
		if c != nil { // else reported
			out[string(name)] = c
		}
	})
	return out
}

// completion reads one completion, at where in the file (for messages, within
// member): a list of strings, or a function (value, args, ctx) returning one, which
// find finds in a state's copy of the file's table.
func (lt *luaTool) completion(v lua.LValue, where string, problem func(member, format string, args ...any), member string, find func(main *lua.LTable) lua.LValue) *feature.Completion {
	switch v := v.(type) {
	case *lua.LFunction:
		return &feature.Completion{Func: func(ctx context.Context, value string, args map[string]string, cc *engine.CallContext) ([]string, error) {
			return lt.runCompletion(ctx, cc, where, find, value, args)
		}}
	case *lua.LTable:
		values := []string{}
		good := countKeys(v) == v.Len()
		for i := 1; good && i <= v.Len(); i++ {
			s, ok := v.RawGetInt(i).(lua.LString)
			values, good = append(values, string(s)), ok
		}
		if good {
			return &feature.Completion{Values: values}
		}
	}
	problem(member, "%s must be a list of strings or a function (value, args, ctx), got %s", where, typeName(v))
	return nil
}

// runCompletion runs the completion function find finds for value and args: its
// list of strings, or an error saying what it did instead (where names it).
func (lt *luaTool) runCompletion(ctx context.Context, cc *engine.CallContext, where string, find func(main *lua.LTable) lua.LValue, value string, args map[string]string) ([]string, error) {
	var values []string
	err := lt.with(ctx, cc, "complete", new(bindings.Call), nil, func(vm *bindings.VM, c *bindings.Call) error {
		fn := find(vm.Main.(*lua.LTable))
		if fn.Type() != lua.LTFunction {
			return wrongKind(where, fn)
		}
		out, err := vm.Call(c, fn, lua.LString(value), stringTable(vm.L, args), luaContextFor(vm, cc))
		if err != nil {
			return err
		}
		if err := failure(out); err != nil {
			return err
		}
		if values, err = stringList(first(out)); err != nil {
			// Whatever the function did to the state to get there is not trusted
			// with the next call.
			vm.Discard()
			return fmt.Errorf("complete returned %v", err)
		}
		return nil
	})
	return values, err
}

// stringList converts a list of strings.
func stringList(v lua.LValue) ([]string, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("%s; it must return a list of strings", typeName(v))
	}
	if countKeys(t) != t.Len() {
		return nil, errors.New("a table with keys other than 1 to n; it must return a list of strings")
	}
	out := make([]string, 0, t.Len())
	for i := 1; i <= t.Len(); i++ {
		s, ok := t.RawGetInt(i).(lua.LString)
		if !ok {
			return nil, fmt.Errorf("a list whose item %d is %s; it must return a list of strings", i, typeName(t.RawGetInt(i)))
		}
		out = append(out, string(s))
	}
	return out, nil
}

// stringTable converts a table of strings for Lua.
func stringTable(L *lua.LState, m map[string]string) *lua.LTable {
	t := L.CreateTable(0, len(m))
	for k, v := range m {
		t.RawSetString(k, lua.LString(v))
	}
	return t
}

// getPrompt runs get and converts its messages.
func (lt *luaTool) getPrompt(ctx context.Context, args map[string]string, cc *engine.CallContext) ([]feature.PromptMessage, error) {
	var msgs []feature.PromptMessage
	err := lt.invoke(ctx, cc, "get", func(vm *bindings.VM) (memberArgs, error) {
		return argsOf(stringTable(vm.L, args), luaContextFor(vm, cc)), nil
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
		return argsOf(lua.LString(uri), luaContextFor(vm, cc), stringTable(vm.L, params)), nil
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

// resourceUpdated is ctx:resourceUpdated(uri): the call tells the clients subscribed
// to uri that its content changed (feature.ReportChange). Only call may: a question
// changes nothing, and a resource's read telling its readers to read again would
// loop. A URI no resource serves is an error, with the closest one.
func (c *luaContext) resourceUpdated(L *lua.LState) int {
	uri := bindings.NewArgs(L, "ctx:resourceUpdated").String(2)
	if !acting(bindings.CurrentCall(L)) {
		L.RaiseError("ctx:resourceUpdated is not available here: only call() may report a change")
	}
	if err := feature.ReportChange(c.cc, uri); err != nil {
		L.RaiseError("ctx:resourceUpdated: %v", err)
	}
	return 0
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
