package engine

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luatool/luatool/engine/client"
	"github.com/luatool/luatool/engine/content"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/session/filestate"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// A ToolDef is a tool as its author wrote it: every member optional except Name,
// InputSchema, Prompt and Call. Build merges the defaults of defaults.go into it.
// Lua files become ToolDefs through the loader; Go hosts write them directly.
//
// Functions receive the input after schema validation, coercion and defaults. An
// error returned by a function is handled as the defaults table says: the fail-closed
// answer for a question (IsReadOnly, CheckPermissions, ...), an error result for
// Call and MapResult.
type ToolDef struct {
	// Name is the tool's name as the model sees it: MCP's rule, a letter then up to
	// 127 of letters, digits, _, - and . (^[A-Za-z][A-Za-z0-9_.-]{0,127}$; see
	// ValidName). The Anthropic and OpenAI APIs take no dots and at most 64
	// characters: APIName gives the name they are sent.
	Name string
	// Aliases are other names lookup accepts (old names kept for compatibility).
	Aliases []string
	// SearchHint is a 3-10 word phrase ToolSearch scores.
	SearchHint string
	// ShouldDefer withholds the schema until the tool is discovered; AlwaysLoad wins over it.
	ShouldDefer, AlwaysLoad bool
	// Network lists the hosts the tool's call may reach through host modules that use
	// the network (patterns of package netpolicy: "api.github.com", "*.example.com",
	// an address or a prefix), or is "*" alone for a tool that fetches what the model
	// asks: each host it reaches then needs a permission of its own, through the
	// "domain:HOST" entries of its RuleContent, which it must have. Empty means the
	// tool reaches no host. See Tool.Network and CallContext.Network.
	Network []string
	// MaxResultSizeChars is the size above which a result is persisted to a file. Zero
	// means the default; math.Inf(1) means never persist. The effective threshold is
	// at most DefaultMaxResultSizeChars.
	MaxResultSizeChars float64
	// InputSchema is the JSON Schema of the input, a JSON value whose root is an object schema.
	InputSchema map[string]any
	// OutputSchema, if set, is the JSON Schema of ToolResult.Data.
	OutputSchema map[string]any
	// Source says where the tool was defined ("path/to/tool.lua", "go"), for messages.
	Source string
	// Hints are what the tool declares about every call whatever its input, offered
	// to MCP clients as annotations. A Lua tool's plain-value isReadOnly,
	// isDestructive, isOpenWorld and isConcurrencySafe members (not functions) and its
	// isIdempotent member fill them. Where IsReadOnly, IsDestructive, IsOpenWorld or
	// IsConcurrencySafe is nil, the matching hint is also the engine's answer (asked
	// without a Lua call).
	Hints Hints

	Prompt            func(ctx context.Context, opts PromptOptions) (string, error)
	Description       func(ctx context.Context, input map[string]any) (string, error)
	UserFacingName    func(ctx context.Context, input map[string]any) (string, error)
	IsEnabled         func(ctx context.Context) (bool, error)
	IsReadOnly        func(ctx context.Context, input map[string]any) (bool, error)
	IsConcurrencySafe func(ctx context.Context, input map[string]any) (bool, error)
	IsDestructive     func(ctx context.Context, input map[string]any) (bool, error)
	IsOpenWorld       func(ctx context.Context, input map[string]any) (bool, error)
	InterruptBehavior func(ctx context.Context) (string, error)
	// CoerceInput, if set, mends a sloppy input before the schema sees it (an old
	// name of a parameter, a value where the tool can infer a missing one): it gets
	// the decoded input, before coercion and defaults, and returns the input to
	// validate instead, or nil to validate the input as given, and a note for the
	// model ("" for none) that a successful text result then ends with, after a blank
	// line (what was mended, so that the model calls it right next time). See
	// Tool.CoerceInput.
	CoerceInput func(ctx context.Context, input map[string]any) (mended map[string]any, note string, err error)
	// ValidationErrorSteer, if set, is asked when the input fails the schema, with
	// the input as given: a sentence it returns is put before the problems, to steer
	// a model that called the tool with another tool's parameters. See
	// Tool.ValidationErrorSteer.
	ValidationErrorSteer  func(ctx context.Context, input map[string]any) (string, error)
	ValidateInput         func(ctx context.Context, input map[string]any, cc *CallContext) (ValidationResult, error)
	CheckPermissions      func(ctx context.Context, input map[string]any, cc *CallContext) (PermissionResult, error)
	GetPath               func(ctx context.Context, input map[string]any) (string, error)
	RuleContent           func(ctx context.Context, input map[string]any) ([]string, error)
	ToAutoClassifierInput func(ctx context.Context, input map[string]any) (string, error)
	Call                  func(ctx context.Context, input map[string]any, cc *CallContext) (*ToolResult, error)
	MapResult             func(ctx context.Context, data any, toolUseID string) (Content, error)

	RenderToolUseMessage         func(ctx context.Context, input map[string]any) (string, error)
	RenderToolResultMessage      func(ctx context.Context, data any) (string, error)
	RenderToolUseProgressMessage func(ctx context.Context, progress any) (string, error)
	RenderToolUseRejectedMessage func(ctx context.Context, input map[string]any) (string, error)
	RenderToolUseErrorMessage    func(ctx context.Context, message string) (string, error)

	// Hook, when set, makes the file a hook file instead of a tool: the other
	// members but Source, Close and MemberLine are unused, and the engine runs the
	// hook at its event (see hooks.Def) as long as the file is loaded.
	Hook *hooks.Def
	// Feature, when set, makes the file serve a prompt or a resource instead of a
	// tool (see Feature): the other members but Source, Close and MemberLine are
	// unused.
	Feature Feature

	// Close, if set, releases what the definition holds (pooled Lua states) once the
	// tool has left every registry snapshot.
	Close func()
	// MemberLine, if set, tells on which line of Source a member is given, for the
	// engine's diagnostics about it (0 when it cannot tell). Loaders set it.
	MemberLine func(member string) int
	// Crossing, if set, starts a Crossing for each call of the tool, which then runs
	// the members whose functions are set here through it. Loaders set it.
	Crossing func() Crossing
	// MaxInputDepth, if set, is the deepest input nesting the tool's code can take
	// (a loader's conversion limit): a deeper input is an InputValidationError, as
	// one past Options.MaxInputDepth is, rather than a failure inside the call.
	MaxInputDepth int
}

// Hints are a tool's answers that hold for every input, for clients that show or
// act on them before any call (MCP's tool annotations, but for ConcurrencySafe, which
// MCP has no word for). Nil means not declared, or depending on the input: clients
// then assume the unsafe answer (not read-only, destructive, not idempotent, open
// world, not concurrency-safe).
type Hints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld, ConcurrencySafe *bool
}

// PromptOptions is what a prompt function may look at.
type PromptOptions struct {
	// Tools are the names of the tools in the same snapshot.
	Tools []string
}

// ValidationResult is the answer of ValidateInput.
type ValidationResult struct {
	// Valid is true when the input may proceed.
	Valid bool
	// Message tells the model what is wrong; it is sent wrapped in <tool_use_error>.
	Message string
	// ErrorCode is for telemetry only.
	ErrorCode int
}

// PermissionResult is the answer of CheckPermissions.
type PermissionResult struct {
	Behavior rules.Behavior
	// UpdatedInput, when set with Allow, replaces the input given to Call.
	UpdatedInput map[string]any
	// Message explains a deny or an ask.
	Message string
	// SafetyCheck, with Ask, is why the call would write something protected (see
	// CallContext.Protected): the original's decisionReason of type "safetyCheck".
	// Such an ask goes to a person whatever the mode, the allow rules or a hook say,
	// as the engine's own check of a tool's getPath does.
	SafetyCheck string
}

// ToolResult is what Call returns.
type ToolResult struct {
	// Data is the tool's output: any JSON value. MapResult turns it into the content
	// the model sees; the host may show it as it is.
	Data any
	// NewMessages follow the tool_result, in order (for example extra context blocks).
	NewMessages []any
	// MCPMeta is passed to MCP clients as _meta.
	MCPMeta map[string]any
	// ContextModifier changes the context of the later calls of the turn. Run applies
	// it only when the tool was not concurrency-safe for its input: calls that ran side
	// by side must not depend on each other's changes.
	ContextModifier *ContextChange
}

// A ContextChange is what a tool may change for the rest of a turn. Zero fields
// change nothing.
type ContextChange struct {
	// Cwd is the new working directory.
	Cwd string
	// Mode is the new permission mode.
	Mode rules.Mode
	// Allow, Ask and Deny are permission rules added for the rest of the turn.
	Allow, Ask, Deny []string
	// State sets keys of the session state (a nil value deletes the key).
	State map[string]any
}

// A ContentBlock is one block of tool_result or prompt content, of one of MCP's
// kinds (Type): "text" (Text), "image" or "audio" (Source: {type = "base64",
// media_type =, data =}, as the Anthropic API takes an image), "resource" (an embedded
// resource: Resource) or "resource_link" (Link); any may carry Annotations. Check says
// whether a block is one MCP takes. MCP clients get every kind as it is; a model, as
// Content's JSON renders it (see contentblock.go): text and images as they are, the
// other kinds as the texts Claude Code gives them.
type ContentBlock struct {
	Type        string               `json:"type"`
	Text        string               `json:"text,omitempty"`
	Source      map[string]any       `json:"source,omitempty"`
	Resource    *content.Resource    `json:"-"`
	Link        *content.Link        `json:"-"`
	Annotations *content.Annotations `json:"-"`
}

// Content is the content of a tool_result.
type Content []ContentBlock

// Text returns content made of one text block.
func Text(s string) Content { return Content{{Type: "text", Text: s}} }

// String returns the text the model reads of c, joined by newlines: the text blocks,
// and the texts that stand for audio, resources and resource links.
func (c Content) String() string {
	var texts []string
	for _, b := range c {
		if b.Type == "text" {
			texts = append(texts, b.Text)
			continue
		}
		for _, m := range b.appendModel(nil) {
			if m.Type == "text" {
				texts = append(texts, m.Text)
			}
		}
	}
	return strings.Join(texts, "\n")
}

// MarshalJSON renders content made of one text block as a plain string, as the model
// APIs accept and the original system sends; anything else as an array of the blocks
// the Messages API takes (text and image: audio, resources and links become text, see
// ContentBlock).
func (c Content) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// appendJSON appends the JSON of c to dst: a single text block as its string, with
// no buffer of its own.
func (c Content) appendJSON(dst []byte) ([]byte, error) {
	if len(c) == 1 && c[0].Type == "text" {
		return jsonvalue.AppendString(dst, c[0].Text), nil
	}
	if c == nil {
		return append(dst, `""`...), nil
	}
	blocks, err := jsonvalue.Encode(c.model())
	return append(dst, blocks...), err
}

// UnmarshalJSON accepts a string or an array of blocks.
func (c *Content) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = Text(s)
		return nil
	}
	var blocks []ContentBlock
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	*c = blocks
	return nil
}

// A ToolUse is one tool_use block from the model.
type ToolUse struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// A ResultBlock is one tool_result block for the model.
type ResultBlock struct {
	Type      string  `json:"type"`
	ToolUseID string  `json:"tool_use_id"`
	Content   Content `json:"content"`
	IsError   bool    `json:"is_error"`
}

// MarshalJSON writes the block as the struct's fields say, without reflection: it is
// written once for every call.
func (b ResultBlock) MarshalJSON() ([]byte, error) {
	size := len(b.Type) + len(b.ToolUseID) + 64 // the keys, quotes and "false"
	if len(b.Content) == 1 {
		size += len(b.Content[0].Text) + 2
	}
	out := make([]byte, 0, size)
	out = append(out, `{"type":`...)
	out = jsonvalue.AppendString(out, b.Type)
	out = append(out, `,"tool_use_id":`...)
	out = jsonvalue.AppendString(out, b.ToolUseID)
	out = append(out, `,"content":`...)
	out, err := b.Content.appendJSON(out)
	if err != nil {
		return nil, err
	}
	out = append(out, `,"is_error":`...)
	out = strconv.AppendBool(out, b.IsError)
	return append(out, '}'), nil
}

// CallContext is what a tool's ValidateInput, CheckPermissions and Call see of the
// call and the session: the ToolUseContext of the original system. Lua tools see it
// as ctx. It is built per call; State and Files are the session's (see Principal).
type CallContext struct {
	// ToolUseID is the id of the tool_use block being answered.
	ToolUseID string
	// Cwd is the working directory; Roots are the directories tools may touch.
	Cwd   string
	Roots []string
	// Mode is the permission mode.
	Mode rules.Mode
	// Tools are the names of the tools in the snapshot serving the call.
	Tools []string
	// Deadline is when the call will be stopped; zero means none.
	Deadline time.Time
	// State is the tools' state of the call's session (ctx.state).
	State *State
	// Files is the session's readFileState: what the model was shown of each file,
	// for the read-before-write rule of Write and Edit. Shared by every call of a
	// session; the host modules that read and write files keep it.
	Files filestate.Store
	// Progress reports progress data for the host to show; never sent to the model.
	Progress func(data any)
	// Client is the client of the call (Callbacks.Client, or Options.Client): the
	// call's log messages, model and user. Never nil in a call the engine makes
	// (client.None offers nothing); Summarize is one use of it.
	Client client.Client
	// Session is the key of the session the call runs in (its principal's, see
	// Principal). Host modules keep what a call starts beyond the call by it (the
	// shell module's background commands), so that no session reaches another's.
	Session string

	// writable is set while call runs for a tool that is not read-only for its input:
	// only then may host functions change anything (see Writable).
	writable bool
	// network is what the running call may reach, set while call runs (see Network).
	network callNetwork
	// shown are the files the call showed the model (Show), committed to Files when
	// the call succeeds.
	shownMu sync.Mutex
	shown   map[string]filestate.Entry
	// registry is the snapshot serving the call.
	registry *Registry
	// engine made the call; OnClose registers with it.
	engine *Engine
	// rules are the permission rules in force for the call.
	rules rules.Set
	// hidden is what bindings.Call.Hidden reports for the call: whether a Read deny
	// rule hides a path from listings and searches. Nil hides nothing.
	hidden func(absPath string) bool
	// hiddenBelow is what bindings.Call.HiddenBelow reports for the call: whether a
	// Read deny rule may hide a directory or a path below it. Nil hides nothing.
	hiddenBelow func(absDir string) bool
	// readOnly, when readOnlyKnown, is the tool's isReadOnly answer for the call's
	// input, asked once per call.
	readOnly, readOnlyKnown bool
	// nest is what CallTool needs to run calls inside this one (nested.go).
	nest nesting
	// cross is the call's Crossing, while it runs, when its tool has one.
	cross Crossing
	// logTo receives what Log is given: the call's log (Result.Log), or the
	// engine's Logger for a feature's code; nil drops it.
	logTo lineLog
}

// A lineLog receives the lines code logs: an interface rather than a function, so
// that a call hands its own state as it is, without making a function for each
// call.
type lineLog interface {
	Log(line string)
}

// Log records a line the tool logs (Lua print and ctx:log): in the call's
// Result.Log, redacted, for a call the engine runs. A CallContext made outside the
// engine drops it.
func (cc *CallContext) Log(line string) {
	if cc != nil && cc.logTo != nil {
		cc.logTo.Log(line)
	}
}

// Writable reports whether the running code may change anything: only call may, of
// a tool that is not read-only for its input, once its permission decision allowed
// it. Loaders give host functions write access by it.
func (cc *CallContext) Writable() bool { return cc != nil && cc.writable }

// HiddenPaths returns the test of the paths a Read deny rule hides from the call's
// listings and searches (absolute, clean paths), or nil when no rule hides any.
func (cc *CallContext) HiddenPaths() func(absPath string) bool {
	if cc == nil {
		return nil
	}
	return cc.hidden
}

// HiddenBelow returns the test that goes with HiddenPaths for directories: whether a
// Read deny rule may hide the directory or a path below it, now or once made, or nil
// when no rule hides any path (see bindings.Call.HiddenBelow).
func (cc *CallContext) HiddenBelow() func(absDir string) bool {
	if cc == nil {
		return nil
	}
	return cc.hiddenBelow
}

// OnClose registers fn to run when the engine that runs the call closes
// (Engine.Close), for what the call starts that outlives it, such as a background
// command; the returned cancel unregisters fn, once that thing has ended by itself.
// Close runs the functions registered at once, each on a goroutine of its own, and
// returns when all have returned. OnClose returns nil, and fn never runs, for a
// CallContext no engine made: its caller must then not start anything it could not
// end.
func (cc *CallContext) OnClose(fn func()) (cancel func()) {
	if cc == nil || cc.engine == nil {
		return nil
	}
	return cc.engine.onClose(fn)
}

// Closer returns OnClose as a function that is the same for every call the engine
// runs, for a loader to hand host functions (bindings.Call.OnClose) without making
// one for each call. For a CallContext no engine made, the function returns nil, as
// OnClose does.
func (cc *CallContext) Closer() func(fn func()) (cancel func()) {
	if cc == nil || cc.engine == nil {
		return noCloser
	}
	return cc.engine.closer
}

func noCloser(func()) func() { return nil }

// Show records that the call shows the model a file (absolute, clean path): the
// entry goes to Files when the call succeeds, so that a call that read a file and
// then failed has shown the model nothing. Host modules call it (fs.read and fs.lines
// with record = true); a tool's own code cannot, so no tool can pretend the model
// read a file.
func (cc *CallContext) Show(path string, e filestate.Entry) {
	cc.shownMu.Lock()
	defer cc.shownMu.Unlock()
	if cc.shown == nil {
		cc.shown = map[string]filestate.Entry{}
	}
	cc.shown[path] = e
}

// commitShown records what the call showed in the session's Files.
func (cc *CallContext) commitShown() {
	cc.shownMu.Lock()
	defer cc.shownMu.Unlock()
	if cc.Files == nil {
		return
	}
	for p, e := range cc.shown {
		if prev, ok := cc.Files.Get(p); ok && e.Partial && !prev.Partial && prev.Hash == e.Hash {
			// The model saw this same content in full before: a look at part of it
			// (or past its end) takes nothing away.
			continue
		}
		cc.Files.Set(p, e)
	}
}

// Registry returns the snapshot serving the call: the tools a tool that lists or
// searches tools (ToolSearch) sees. Nil outside a call.
func (cc *CallContext) Registry() *Registry {
	if cc == nil {
		return nil
	}
	return cc.registry
}

// Discover marks tools as discovered for the session, by name, as Engine.Discover
// does: their schemas have reached the model (ToolSearch revealed them).
func (cc *CallContext) Discover(names ...string) {
	if cc != nil && cc.nest.turn != nil {
		cc.nest.turn.session.discover(cc.nest.ctx, names...)
	}
}
