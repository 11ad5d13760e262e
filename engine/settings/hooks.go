package settings

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/srcpos"
	"github.com/luatool/luatool/internal/jsonvalue"
	"github.com/luatool/luatool/internal/spell"
)

// The "hooks" and "disableAllHooks" of settings files are read into a hooks.Settings,
// in Claude Code's shape:
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
//	                           "hooks": [{"type": "command", "command": "...", "timeout": 60}]}],
//	           "PostToolUse": [...], "PostToolUseFailure": [...]},
//	 "disableAllHooks": false}
//
// A hook entry luatool cannot run (another event, another handler type, a matcher
// that is not a Go regular expression, a missing command) is reported as a warning
// with its file and line, and left out; the rest of the file is used.

// otherHookEvents are the events of Claude Code's hooks luatool does not run, so that
// a file written for the original is told which of its hooks do nothing here.
var otherHookEvents = []string{
	"PermissionRequest", "PermissionDenied", "UserPromptSubmit", "Notification", "Stop",
	"StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
	"SessionStart", "SessionEnd", "Setup", "TeammateIdle", "TaskCreated", "TaskCompleted",
	"ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "Elicitation",
	"ElicitationResult", "CwdChanged", "FileChanged",
}

// handlerKeys are the keys of a handler luatool reads; ignoredHandlerKeys those of
// the original it ignores, because they change only what a person sees.
var (
	handlerKeys        = []string{"type", "command", "args", "timeout"}
	ignoredHandlerKeys = []string{"statusMessage"}
	// refusedHandlerKeys change when or how the hook runs: a handler with one is left
	// out rather than run otherwise than its author meant.
	refusedHandlerKeys = []string{"async", "asyncRewake", "if", "once", "shell"}
)

// hooksValue reads the value of the "hooks" key.
func (r *reader) hooksValue() {
	n := r.node()
	if n.kind != '{' {
		r.hookProblem(n, "hooks", "must be an object of events, not %s", n.what())
		return
	}
	events := make([]string, len(hooks.Events))
	for i, e := range hooks.Events {
		events[i] = string(e)
	}
	for _, kv := range n.obj {
		at := jsonvalue.JoinKey("hooks", kv.key)
		if !slices.Contains(events, kv.key) {
			msg := fmt.Sprintf("event %q is not one luatool runs hooks for (it runs %s); its hooks are left out", kv.key, quotedList(events))
			if s := spell.Suggest(kv.key, events); s != "" && !slices.Contains(otherHookEvents, kv.key) {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
			r.hookProblem(kv.keyNode, at, "%s", msg)
			continue
		}
		r.hookGroups(hooks.Event(kv.key), at, kv.value)
	}
}

// hookGroups reads the array of matcher groups of one event.
func (r *reader) hookGroups(event hooks.Event, path string, n node) {
	if n.kind != '[' {
		r.hookProblem(n, path, "must be an array of {\"matcher\": ..., \"hooks\": [...]}, not %s", n.what())
		return
	}
	for i, g := range n.arr {
		at := jsonvalue.JoinIndex(path, i)
		if g.kind != '{' {
			r.hookProblem(g, at, "must be an object {\"matcher\": ..., \"hooks\": [...]}, not %s", g.what())
			continue
		}
		matcher, handlers, ok := "", node{}, true
		for _, kv := range g.obj {
			switch kv.key {
			case "matcher":
				s, isString := kv.value.val.(string)
				if !isString {
					r.hookProblem(kv.value, jsonvalue.JoinKey(at, "matcher"), "must be a string, not %s", kv.value.what())
					ok = false
					continue
				}
				if _, err := hooks.CompileMatcher(s); err != nil {
					r.hookProblem(kv.value, jsonvalue.JoinKey(at, "matcher"), "%v; these hooks are left out", err)
					ok = false
				}
				matcher = s
			case "hooks":
				handlers = kv.value
			default:
				r.hookProblem(kv.keyNode, at, "unknown key %q%s; the keys are matcher and hooks", kv.key, didYouMean(kv.key, []string{"matcher", "hooks"}))
			}
		}
		if !ok {
			continue
		}
		if handlers.kind != '[' {
			r.hookProblem(g, jsonvalue.JoinKey(at, "hooks"), "must be an array of handlers, not %s", handlers.what())
			continue
		}
		for j, h := range handlers.arr {
			r.hookHandler(event, matcher, jsonvalue.JoinIndex(jsonvalue.JoinKey(at, "hooks"), j), h)
		}
	}
}

// hookHandler reads one handler; only a well-formed command handler is kept.
func (r *reader) hookHandler(event hooks.Event, matcher, path string, n node) {
	if n.kind != '{' {
		r.hookProblem(n, path, "must be an object {\"type\": \"command\", \"command\": ...}, not %s", n.what())
		return
	}
	var typ string
	for _, kv := range n.obj {
		if kv.key == "type" {
			typ, _ = kv.value.val.(string)
		}
	}
	switch {
	case typ == "":
		r.hookProblem(n, path, `has no "type"; luatool runs "command" hooks`)
		return
	case typ == "http" || typ == "prompt" || typ == "agent" || typ == "mcp_tool":
		r.hookProblem(n, path, "hooks of type %q are not supported by luatool (only \"command\"); this one is left out", typ)
		return
	case typ != "command":
		r.hookProblem(n, path, "unknown hook type %q%s; luatool runs \"command\" hooks", typ, didYouMean(typ, []string{"command"}))
		return
	}
	h := hooks.CommandSpec{Event: event, Matcher: matcher, Pos: r.pos(n.off), Source: r.layer.Name}
	ok := true
	for _, kv := range n.obj {
		at := jsonvalue.JoinKey(path, kv.key)
		v := kv.value
		switch kv.key {
		case "type":
		case "command":
			s, isString := v.val.(string)
			if !isString || strings.TrimSpace(s) == "" {
				r.hookProblem(v, at, "must be a command, a string that is not empty")
				ok = false
			}
			h.Command = s
		case "args":
			if v.kind != '[' || len(v.arr) == 0 {
				r.hookProblem(v, at, "must be an array of strings, the program first")
				ok = false
				continue
			}
			for _, a := range v.arr {
				s, isString := a.val.(string)
				if !isString {
					r.hookProblem(a, at, "must be an array of strings, not one with %s", a.what())
					ok = false
				}
				h.Args = append(h.Args, s)
			}
		case "timeout":
			num, isNumber := v.val.(json.Number)
			f, err := num.Float64()
			if !isNumber || err != nil || f <= 0 || math.IsInf(f, 0) || f > 24*3600 {
				r.hookProblem(v, at, "must be a number of seconds, more than 0 and at most a day")
				ok = false
				continue
			}
			h.Timeout = time.Duration(f * float64(time.Second))
		default:
			switch {
			case slices.Contains(ignoredHandlerKeys, kv.key):
			case slices.Contains(refusedHandlerKeys, kv.key):
				r.hookProblem(kv.keyNode, path, "%q is not supported by luatool; the hook is left out rather than run otherwise than written", kv.key)
				ok = false
			default:
				r.hookProblem(kv.keyNode, path, "unknown key %q%s; the keys are %s", kv.key, didYouMean(kv.key, handlerKeys), strings.Join(handlerKeys, ", "))
			}
		}
	}
	switch {
	case h.Command == "" && len(h.Args) == 0 && ok:
		r.hookProblem(n, path, `a command hook needs "command" (run by /bin/sh -c) or "args"`)
		return
	case h.Command != "" && len(h.Args) > 0:
		r.hookProblem(n, path, `has both "command" and "args"; give one`)
		return
	}
	if ok {
		r.hooks.Commands = append(r.hooks.Commands, h)
	}
}

// disableAllHooks reads the value of the "disableAllHooks" key.
func (r *reader) disableAllHooks() {
	n := r.node()
	b, ok := n.val.(bool)
	if !ok {
		// A value meant to turn hooks off must not leave them on unnoticed.
		r.problem(n.off, "disableAllHooks", "must be true or false, not %s", n.what())
		return
	}
	r.hooks.Disabled = b
}

// hookProblem reports a hook entry that is left out: a warning with its position.
func (r *reader) hookProblem(n node, path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	r.warnings = append(r.warnings, r.position(n.off)+": "+msg)
}

// pos is the position of offset off.
func (r *reader) pos(off int) srcpos.Pos {
	return srcpos.Pos{File: r.file, Line: r.line(off), Column: r.column(off)}
}

// didYouMean is " (did you mean X?)" when key looks like a misspelling of one of keys.
func didYouMean(key string, keys []string) string {
	if s := spell.Suggest(key, keys); s != "" {
		return fmt.Sprintf(" (did you mean %s?)", s)
	}
	return ""
}

// A node is a JSON value read with the offset where it starts, for values whose
// problems are reported member by member.
type node struct {
	off  int
	kind byte // '{', '[' or 0 for a scalar
	obj  []keyValue
	arr  []node
	val  any // string, json.Number, bool or nil
}

type keyValue struct {
	key     string
	keyNode node
	value   node
}

// what names the kind of value, for messages.
func (n node) what() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return tokenKind(n.val)
}

// node reads the next value whole.
func (r *reader) node() node {
	tok, off := r.token()
	n := node{off: off}
	switch tok {
	case json.Delim('{'):
		n.kind = '{'
		for r.more() {
			k, koff := r.token()
			key, _ := k.(string)
			n.obj = append(n.obj, keyValue{key: key, keyNode: node{off: koff, val: key}, value: r.node()})
		}
		r.token()
	case json.Delim('['):
		n.kind = '['
		for r.more() {
			n.arr = append(n.arr, r.node())
		}
		r.token()
	default:
		n.val = tok
	}
	return n
}
