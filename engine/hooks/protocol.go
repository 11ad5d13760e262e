package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// An Event names the moment of a call a hook runs at.
type Event string

// The hook events luatool runs, with Claude Code's names.
const (
	// PreToolUse runs after validateInput, before the permission step.
	PreToolUse Event = "PreToolUse"
	// PostToolUse runs after a call that succeeded, before mapResult.
	PostToolUse Event = "PostToolUse"
	// PostToolUseFailure runs after a call whose tool failed.
	PostToolUseFailure Event = "PostToolUseFailure"
)

// Events are the events luatool runs hooks for.
var Events = []Event{PreToolUse, PostToolUse, PostToolUseFailure}

// Input is what a hook is told of a call: the JSON a command hook reads on its
// stdin, with Claude Code's field names. ToolResponse and DurationMS are set for
// PostToolUse, Error, IsInterrupt and DurationMS for PostToolUseFailure; the JSON
// has each field only for the events that define it.
type Input struct {
	SessionID      string         `json:"session_id"`
	TranscriptPath string         `json:"transcript_path"`
	Cwd            string         `json:"cwd"`
	PermissionMode rules.Mode     `json:"permission_mode"`
	HookEventName  Event          `json:"hook_event_name"`
	ToolName       string         `json:"tool_name"`
	ToolInput      map[string]any `json:"tool_input"`
	ToolUseID      string         `json:"tool_use_id"`
	// ToolResponse is the tool's data (PostToolUse).
	ToolResponse any `json:"tool_response"`
	// Error is the text the model is shown of the failure (PostToolUseFailure).
	Error string `json:"error"`
	// IsInterrupt is set when the call failed because it was cancelled.
	IsInterrupt bool `json:"is_interrupt"`
	// DurationMS is how long the tool's call ran, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
}

// MarshalJSON writes the fields of the input's event only.
func (in Input) MarshalJSON() ([]byte, error) {
	type plain Input
	b, err := json.Marshal(plain(in))
	if err != nil {
		return nil, err
	}
	v, err := jsonvalue.Decode(b) // numbers as they were: integers stay exact
	if err != nil {
		return nil, err
	}
	m := v.(map[string]any)
	switch in.HookEventName {
	case PostToolUse:
		delete(m, "error")
		delete(m, "is_interrupt")
	case PostToolUseFailure:
		delete(m, "tool_response")
	default:
		for _, k := range []string{"tool_response", "error", "is_interrupt", "duration_ms"} {
			delete(m, k)
		}
	}
	return json.Marshal(m)
}

// A Decision is a hook's answer, whichever source gave it. The zero value has no
// opinion: the call goes on as it would without the hook.
type Decision struct {
	// Permission is Allow, Deny, Ask or "" (none), for PreToolUse.
	Permission rules.Behavior
	// Reason says why: for a deny, and for a PostToolUse block, the model is told it;
	// for an ask, the person asked is.
	Reason string
	// UpdatedInput, for PreToolUse, replaces the whole input; it is validated again
	// as the model's input was.
	UpdatedInput map[string]any
	// AdditionalContext is text added for the model after the result.
	AdditionalContext string
	// Block, for PostToolUse, tells the model Reason beside the output it still sees.
	Block bool
	// UpdatedOutput, for PostToolUse, replaces the tool's data when it is not nil. A
	// string is what the model sees, as is; any other value takes the place of the
	// data, must match the tool's outputSchema when it has one (or it is ignored, and
	// logged), and goes through mapResult like the tool's own data.
	UpdatedOutput any

	// blocks are the blocks merged into this decision, each with the hook that gave
	// it, for the texts the model sees.
	blocks []block
}

// block is one PostToolUse block: the hook's name ("" for a middleware) and why.
type block struct{ by, reason string }

// A Hook runs at one event of the calls of the tools its matcher matches.
type Hook interface {
	// Event is when the hook runs.
	Event() Event
	// Matcher selects the tools by name (see MatchTool).
	Matcher() string
	// Name identifies the hook in logs, and for running a hook given twice once: a
	// command hook's command, a hook file's name.
	Name() string
	// Timeout bounds Run; zero means DefaultTimeout. The call's deadline bounds
	// it too.
	Timeout() time.Duration
	// Run decides on the call. An error is logged, and the call goes on as if the
	// hook were absent.
	Run(ctx context.Context, in *Input) (Decision, error)
}

// A Def is what a hook file defines (the engine's ToolDef.Hook): a loader builds it,
// and the engine runs it as a Hook named by the file, after Options.Hooks, hook files
// in order of source and file name. A change to the file reloads it as a change to a
// tool file does; a file that stops loading keeps its last good version running.
type Def struct {
	// Event is when the hook runs.
	Event Event
	// Matcher selects the tools (see CompileMatcher).
	Matcher string
	// Timeout bounds Run; zero means DefaultTimeout.
	Timeout time.Duration
	// Run decides on a call, as Hook.Run does.
	Run func(ctx context.Context, in *Input) (Decision, error)
}

// DefaultTimeout bounds a hook whose Timeout is zero. Claude Code's default is
// 600 s; a minute is a long time for a step that runs before every matching call.
const DefaultTimeout = time.Minute

// A Call is a call as the middleware sees it: In is the hook input (its event
// PreToolUse until next returns, then PostToolUse or PostToolUseFailure, with the
// tool's data or error), a copy for reading; and Decision is the merged decision of
// the sources before this middleware, which it may change before it calls next (the
// input changes through Decision.UpdatedInput only, so that it is validated again).
type Call struct {
	In       *Input
	Decision Decision
}

// A CallHandler runs the rest of a call from a middleware on, and returns the
// PostToolUse (or PostToolUseFailure) decision so far.
type CallHandler func(ctx context.Context, c *Call) Decision

// A Middleware wraps the rest of every call, as net/http middleware wraps a handler:
// code before next may deny (return a Decision with Permission Deny without
// calling next), ask, allow or update the input (by changing c.Decision, where a
// merge with Merge keeps what earlier sources said); code after next
// sees the result in c.In and may change the decision next returned (block, add
// context, replace the output). A middleware that returns without calling next and
// without a deny denies the call too: a call runs only through the whole chain.
type Middleware func(next CallHandler) CallHandler

// Merge merges decisions given in order: the strongest permission
// (deny, then ask, then allow) with the reasons of the decisions that gave it; the
// last updated input and output; every additional context, one a line; a block if
// any blocks, with the reasons of the blocks.
func Merge(ds ...Decision) Decision {
	var out Decision
	var reasons, blocks, context []string
	for _, d := range ds {
		if rank(d.Permission) > rank(out.Permission) {
			out.Permission, reasons = d.Permission, nil
		}
		if d.Permission != "" && d.Permission == out.Permission && d.Reason != "" {
			reasons = append(reasons, d.Reason)
		}
		if d.Block {
			out.Block = true
			if d.Reason != "" {
				blocks = append(blocks, d.Reason)
			}
			if len(d.blocks) > 0 {
				out.blocks = append(out.blocks, d.blocks...)
			} else {
				out.blocks = append(out.blocks, block{reason: d.Reason})
			}
		}
		if d.UpdatedInput != nil {
			out.UpdatedInput = d.UpdatedInput
		}
		if d.UpdatedOutput != nil {
			out.UpdatedOutput = d.UpdatedOutput
		}
		if d.AdditionalContext != "" {
			context = append(context, d.AdditionalContext)
		}
	}
	out.Reason = strings.Join(append(reasons, blocks...), "\n")
	out.AdditionalContext = strings.Join(context, "\n")
	return out
}

// rank orders permissions for merging: deny > ask > allow > none.
func rank(p rules.Behavior) int {
	switch p {
	case rules.Deny:
		return 3
	case rules.Ask:
		return 2
	case rules.Allow:
		return 1
	}
	return 0
}

// simpleMatcher is the matcher syntax of exact names: letters, digits, _ and -,
// with spaces, commas and | between names.
var simpleMatcher = regexp.MustCompile(`^[A-Za-z0-9_\-, |]*$`)

// matchers caches compiled matchers by text.
var matchers sync.Map // string -> func(string) bool

// CompileMatcher compiles a hook matcher as Claude Code reads one: "*", "" (and an
// absent matcher) match every tool; text of only letters, digits, _, -, spaces,
// commas and | is a list of exact tool names ("Bash", "Edit|Write", "Read, Grep");
// anything else is a regular expression matched anywhere in the name ("Edit.*"
// matches NotebookEdit too; "^Bash$" only Bash). The original's regular expressions
// are JavaScript's; these are Go's (RE2), which have no lookaround and no
// backreferences: such a matcher is an error here.
func CompileMatcher(matcher string) (func(tool string) bool, error) {
	if f, ok := matchers.Load(matcher); ok {
		return f.(func(string) bool), nil
	}
	var f func(string) bool
	switch m := strings.TrimSpace(matcher); {
	case m == "" || m == "*":
		f = func(string) bool { return true }
	case simpleMatcher.MatchString(m):
		names := map[string]bool{}
		for _, n := range strings.FieldsFunc(m, func(r rune) bool { return r == '|' || r == ',' || r == ' ' }) {
			names[n] = true
		}
		f = func(tool string) bool { return names[tool] }
	default:
		re, err := regexp.Compile(m)
		if err != nil {
			return nil, fmt.Errorf("matcher %q is not a regular expression luatool can read (Go's RE2 syntax: no lookaround, no backreferences): %v", matcher, err)
		}
		f = re.MatchString
	}
	matchers.Store(matcher, f)
	return f, nil
}

// MatchTool reports whether a hook's matcher matches a tool name; a matcher that does
// not compile matches nothing.
func MatchTool(matcher, tool string) bool {
	f, err := CompileMatcher(matcher)
	return err == nil && f(tool)
}
