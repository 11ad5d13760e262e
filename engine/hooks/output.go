package hooks

import (
	"errors"
	"fmt"

	"github.com/luatool/luatool/engine/rules"
)

// DecodeOutput reads a hook's answer in the shape of Claude Code's hook output
// JSON: "continue" and "stopReason"; the top-level "decision" ("approve" or "block"
// for PreToolUse, "block" for PostToolUse) with "reason"; and "hookSpecificOutput"
// with "hookEventName", "permissionDecision" (allow, deny, ask, or defer, which
// luatool takes as no decision), "permissionDecisionReason", "updatedInput",
// "additionalContext" and, for PostToolUse, "updatedToolOutput" (or the older
// "updatedMCPToolOutput"). With flat set (Lua hook files), the members of
// hookSpecificOutput may also be given at the top level. "continue": false, which
// stops the whole turn in the original, denies the call (PreToolUse) or blocks its
// result, with stopReason: luatool answers one call at a time, but the hook said
// not to go on. Members of the wrong type, and decisions the event does not take,
// are an error: the hook then gives no decision. Other members are ignored.
func DecodeOutput(event Event, out map[string]any, flat bool) (Decision, error) {
	var d Decision
	o := fields{m: out}
	if cont, ok := o.bool("continue"); ok && !cont {
		reason := o.string("stopReason")
		if reason == "" {
			reason = "the hook said not to continue"
		}
		if event == PreToolUse {
			d.Permission = rules.Deny
		} else {
			d.Block = true
		}
		d.Reason = reason
	}
	switch dec := o.string("decision"); {
	case dec == "":
	case event == PreToolUse && dec == "approve":
		if d.Permission != rules.Deny {
			d.Permission, d.Reason = rules.Allow, o.string("reason")
		}
	case dec == "block" && event == PreToolUse:
		d.Permission, d.Reason = rules.Deny, joinLines(d.Reason, o.string("reason"))
	case dec == "block" && event == PostToolUse:
		d.Block, d.Reason = true, joinLines(d.Reason, o.string("reason"))
	default:
		o.fail("decision: %q is not a decision of %s", dec, event)
	}
	if d.Reason == "" {
		d.Reason = o.string("reason")
	}
	specific, ok := o.object("hookSpecificOutput")
	path := "hookSpecificOutput."
	if !ok && flat {
		specific, ok, path = out, true, ""
	}
	if ok {
		h := fields{m: specific, path: path}
		if name := h.string("hookEventName"); name != "" && name != string(event) {
			h.fail("hookEventName: %q answers another event than %s", name, event)
		}
		switch p := h.string("permissionDecision"); p {
		case "", "defer":
		case "allow", "deny", "ask":
			if event != PreToolUse {
				h.fail("permissionDecision: only PreToolUse hooks decide on permissions")
				break
			}
			if d.Permission != rules.Deny {
				d.Permission = rules.Behavior(p)
				d.Reason = h.string("permissionDecisionReason")
			}
		default:
			h.fail("permissionDecision: %q is not allow, deny, ask or defer", p)
		}
		if in, ok := h.object("updatedInput"); ok {
			d.UpdatedInput = in
		}
		d.AdditionalContext = h.string("additionalContext")
		for _, key := range []string{"updatedToolOutput", "updatedMCPToolOutput"} {
			if v, ok := specific[key]; ok && v != nil {
				if event != PostToolUse {
					h.fail("%s: only PostToolUse hooks replace the output", key)
					continue
				}
				d.UpdatedOutput = v
			}
		}
		o.errs = append(o.errs, h.errs...)
	}
	if len(o.errs) > 0 {
		return Decision{}, errors.Join(o.errs...)
	}
	return d, nil
}

func joinLines(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "\n" + b
}

// fields reads members of a hook's output, recording those of the wrong type.
type fields struct {
	m    map[string]any
	path string
	errs []error
}

func (f *fields) fail(format string, args ...any) {
	f.errs = append(f.errs, fmt.Errorf(f.path+format, args...))
}

func (f *fields) string(key string) string {
	v, ok := f.m[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		f.fail("%s: must be a string", key)
	}
	return s
}

func (f *fields) bool(key string) (bool, bool) {
	v, ok := f.m[key]
	if !ok || v == nil {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		f.fail("%s: must be true or false", key)
	}
	return b, ok
}

func (f *fields) object(key string) (map[string]any, bool) {
	v, ok := f.m[key]
	if !ok || v == nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		f.fail("%s: must be an object", key)
	}
	return m, ok
}
