package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luatool/luatool/engine/client"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/session"
)

// Defaults of the Options.
const (
	// DefaultTimeout bounds one call when Options.Timeout is zero.
	DefaultTimeout = 2 * time.Minute
	// defaultMemberTimeout bounds a member other than call when
	// Options.MemberTimeout is zero.
	defaultMemberTimeout = 2 * time.Second
	// defaultMaxInputDepth is the deepest input nesting accepted when
	// Options.MaxInputDepth is zero.
	defaultMaxInputDepth = 128
)

// Options configure an Engine. Cwd or Roots must be set; otherwise the zero value is
// usable: no tool files (no Loaders), no Go tools, asks denied, results persisted
// under the system's temporary directory.
type Options struct {
	// Tools are Go-native tools. They are built with the same defaults as the tools of
	// files and come first: a tool file's tool of the same name overrides one, with a
	// notice.
	Tools []ToolDef
	// Loaders turn tool files into tools: a file of a Source is loaded by the first
	// loader that matches its name, and files no loader matches are not tools. The
	// Lua loader (package engine/luaload) is the usual one.
	Loaders []Loader
	// Timeout bounds each call (validation, hooks, permission checks and the call
	// itself; not the time a person takes to answer an ask): a hook's own timeout is
	// cut to what is left. Zero means DefaultTimeout. Lua
	// code is stopped at the deadline; a Go-native tool must watch its context.
	Timeout time.Duration
	// Cwd is the working directory tools see; Roots are the directories they may touch.
	// Cwd defaults to the first root, Roots to [Cwd]; one of them must be set. A
	// loader's host modules must be confined to the same roots, or New fails (see
	// Loader).
	Cwd   string
	Roots []string
	// Home is the user's home directory, which "~/x" path rules are relative to. With
	// Home empty such a rule makes New fail: it could not be matched.
	Home string
	// Protected are the host's own files and directories that it loads as code or
	// configuration (settings files, hook scripts, tool directories it may load later),
	// which no call may write without a person's yes, whatever the mode and rules say
	// (see rules.ProtectedPath). They add to what is always protected (.git, shell and
	// editor configuration, ...) and to the directories Load reads tools from. Each must
	// be absolute, or New fails.
	Protected []rules.ProtectedPath
	// MemberTimeout bounds each question member (prompt, isEnabled, the flags,
	// getPath, ruleContent, the renderers, ...) wherever it is asked, so that one that
	// hangs gets the safe answer instead of holding a call, a listing or a reload.
	// validateInput, checkPermissions, call and mapResult share the call's Timeout.
	// Zero means defaultMemberTimeout.
	MemberTimeout time.Duration
	// MaxInputDepth is the deepest nesting of a tool_use input the engine accepts
	// (deeper is an InputValidationError). Zero means defaultMaxInputDepth.
	MaxInputDepth int
	// Mode is the permission mode. Zero means ModeDefault.
	Mode rules.Mode
	// ResultsDir is where results over a tool's size threshold are written, one file
	// a tool_use id. Zero means a directory of this engine's own, made under
	// os.TempDir() when the first result is persisted, so that sessions never share
	// (or replay) each other's files; Close removes it.
	ResultsDir string
	// CanUseTool is asked when the permission pipeline ends in ask. Nil means every
	// ask is a deny. WithCallbacks replaces it for the calls of one context.
	CanUseTool CanUseToolFunc
	// Permissions are the permission rules (and the mode, when Mode is zero), as the
	// host gathered them: package engine/settings reads and merges settings files. A
	// rule that does not parse makes New fail, naming where it came from. SetPolicy
	// replaces them, with Mode, Hooks and Protected, while the engine serves.
	Permissions rules.Settings
	// Sessions keeps what belongs to each principal's session (see Principal): the
	// tools' state, readFileState, the rules "allow always" answers added, the
	// discovered tools. Several engines (processes) that share one store serve a
	// principal alike. Nil means a store in this process's memory.
	Sessions session.Store
	// OnProgress receives progress events as they happen. It may be called from
	// several goroutines at once. WithCallbacks replaces it for the calls of one
	// context.
	OnProgress func(ProgressEvent)
	// MaxToolUseConcurrency is how many concurrency-safe calls of one batch Run runs at
	// once. Zero means defaultMaxToolUseConcurrency.
	MaxToolUseConcurrency int
	// UnloadedTools are the names of tools the host offers that this engine was not
	// given (luatool call loads only the standard tool it calls): permission rules
	// may name them without being reported as naming no tool.
	UnloadedTools []string
	// Logger receives what the engine has to tell the host besides results: a tool
	// member that failed and was given its safe answer (once per member of a tool
	// version, with the error's file and line), for example. Nil discards it.
	Logger *slog.Logger
	// Env holds the values the host hands its tools explicitly (Lua's env.get), by
	// tool, and marks the secrets among them, which the engine redacts from whatever
	// it hands on (see env.Redactor). Nil hands tools nothing.
	Env *env.Set
	// ApprovalHint, if set, is added to the text of a call that needed approval when
	// no one could be asked (no CanUseTool): how the host's user could allow such calls,
	// given the rules that would allow this one. The CLI names its flags.
	ApprovalHint func(rules []string) string
	// Hooks run at the events of every call whose tool their matcher matches, in
	// Claude Code's hook protocol (see package hooks for the order): hooks.FromSettings
	// turns the "hooks" of settings files into these.
	Hooks []hooks.Hook
	// Middleware wraps the rest of every call after the hooks of PreToolUse, the
	// first outermost, in the manner of net/http middleware (see hooks.Middleware).
	Middleware []hooks.Middleware
	// Client is the host's own client of the calls it makes (a Go host: its model and
	// its user): what tools log (ctx:log), the model they sample (ctx:sample, and
	// ctx:summarize, as WebFetch asks about the page it fetched) and the user they
	// elicit input from (ctx:elicit). Tools reach it through CallContext.Client, only
	// while their call runs. A call's Callbacks.Client takes its place. Nil offers
	// nothing: sampling and eliciting are unavailable, and WebFetch returns the page
	// itself.
	Client client.Client
}

// ProgressEvent is one ctx:progress report of a running call.
type ProgressEvent struct {
	ToolUseID string
	Tool      string
	Data      any
}

// A Source is a directory of tool files: *.lua files directly inside it, except
// *_test.lua (tests) and *.d.lua (type definitions).
type Source struct {
	// Name is how files of the source are named in messages: Name + "/" + file. It
	// identifies the source: loading a source of the same name again keeps what is
	// known of its files (the last good version of each).
	Name string
	// FS holds the files, at its root.
	FS fs.FS
	// Dir is the directory on disk, for Watch; empty for sources that are not on
	// disk (the embedded standard set, an fstest.MapFS) and are not watched.
	Dir string
}

// DirSource is the source of a directory on disk.
func DirSource(dir string) Source { return Source{Name: dir, FS: os.DirFS(dir), Dir: dir} }

// An Engine loads tools and runs calls through the pipeline. It is safe for
// concurrent use: each call runs on the registry snapshot current when it started,
// and Load swaps snapshots atomically.
type Engine struct {
	opts     Options
	goTools  []*Tool
	snapshot atomic.Pointer[Registry]
	// policy is what decides what calls may do, swapped whole by SetPolicy.
	policy atomic.Pointer[policy]
	// loadedDirs are the directories of the sources last loaded, absolute: protected
	// like Options.Protected.
	loadedDirs atomic.Pointer[[]rules.ProtectedPath]
	// loadSlots bounds the files loading at once: enough that a few slow main
	// chunks do not hold up the others, few enough that a large directory does not
	// build all its states at once.
	loadSlots chan struct{}

	// loadMu serializes loading; the fields after it are guarded by it.
	loadMu      sync.Mutex
	sources     []*sourceState
	diagnostics []diag.Diagnostic
	subscribers map[int]func(Event)
	nextSub     int

	// resultsMu guards the results directory, made on first use.
	resultsMu  sync.Mutex
	resultsDir string
	// ownResults is set when resultsDir was made by the engine (Options.ResultsDir was
	// empty): Close removes it.
	ownResults bool

	// closeMu guards closers, what calls registered to end at Close
	// (CallContext.OnClose), by registration number.
	closeMu    sync.Mutex
	closers    map[int]func()
	nextCloser int
	// closer is onClose, one function value for every call (CallContext.Closer).
	closer func(fn func()) (cancel func())
}

// New builds an engine with the Go-native tools of opts and no Lua tools yet.
func New(opts Options) (*Engine, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Cwd == "" && len(opts.Roots) > 0 {
		opts.Cwd = opts.Roots[0]
	}
	if opts.Cwd == "" {
		return nil, errors.New("engine: Options.Cwd or Options.Roots is required: the directories tools work in")
	}
	if len(opts.Roots) == 0 {
		opts.Roots = []string{opts.Cwd}
	}
	if opts.Sessions == nil {
		opts.Sessions = session.NewMemory(0)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if r := opts.Env.Redactor(); r != nil {
		opts.Logger = slog.New(r.Handler(opts.Logger.Handler()))
	}
	if opts.MemberTimeout <= 0 {
		opts.MemberTimeout = defaultMemberTimeout
	}
	if opts.MaxInputDepth <= 0 {
		opts.MaxInputDepth = defaultMaxInputDepth
	}
	pol, err := newPolicy(opts.Mode, opts.Permissions, opts.Home, opts.Hooks, opts.Protected)
	if err != nil {
		return nil, err
	}
	opts.Mode = pol.mode
	if err := checkLoaderRoots(opts); err != nil {
		return nil, err
	}
	e := &Engine{opts: opts, loadSlots: make(chan struct{}, 4*runtime.GOMAXPROCS(0))}
	e.closer = e.onClose
	if e.goTools, err = e.buildGoTools(opts.Tools); err != nil {
		return nil, err
	}
	e.policy.Store(pol)
	reg, _ := newRegistry(e.goTools, e.isEnabled)
	e.snapshot.Store(reg)
	return e, nil
}

// AddTools adds Go-native tools to those Options.Tools gave New, built the same way
// and served the same way: before the tools of files, so that a tool file's tool of
// the same name overrides one, with a notice among the Diagnostics. A name a Go tool
// has already, or a definition Build refuses, is an error, and then none is added.
// It swaps in the snapshot with them, and the subscribers hear of each.
func (e *Engine) AddTools(defs ...ToolDef) error {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	tools, err := e.buildGoTools(defs)
	if err != nil {
		return err
	}
	e.goTools = append(e.goTools, tools...)
	e.swapLocked(nil, nil)
	return nil
}

// buildGoTools builds Go-native tools, refusing a name that one of them or of the
// engine's Go tools has already.
func (e *Engine) buildGoTools(defs []ToolDef) ([]*Tool, error) {
	seen := map[string]bool{}
	for _, t := range e.goTools {
		seen[t.Name()] = true
	}
	var tools []*Tool
	for _, def := range defs {
		if seen[def.Name] {
			return nil, fmt.Errorf("tool %s: two Go tools have this name", def.Name)
		}
		seen[def.Name] = true
		if def.Source == "" {
			def.Source = "go:" + def.Name
		}
		t, err := Build(def)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", def.Name, err)
		}
		t.log, t.bound, t.redact = e.opts.Logger, e.opts.MemberTimeout, e.opts.Env.Redactor()
		tools = append(tools, t)
	}
	return tools, nil
}

// Close releases what the engine holds outside its tools. First it ends what calls
// started to outlive them (CallContext.OnClose): the background commands of the
// shell module are stopped, their process groups killed, and Close returns only
// once they have ended. Then the results directory it made (Options.ResultsDir
// empty) is removed with the results in it; a directory the host named is left
// alone. Calls made after Close may start things and persist results again, for the
// next Close to end. Close is safe to call more than once.
func (e *Engine) Close() error {
	e.closeMu.Lock()
	closers := e.closers
	e.closers = nil
	e.closeMu.Unlock()
	var wg sync.WaitGroup
	for _, fn := range closers {
		wg.Go(fn)
	}
	wg.Wait()

	e.resultsMu.Lock()
	defer e.resultsMu.Unlock()
	if !e.ownResults || e.resultsDir == "" {
		return nil
	}
	err := os.RemoveAll(e.resultsDir)
	e.resultsDir, e.ownResults = "", false
	return err
}

// onClose registers fn for Close; cancel unregisters it.
func (e *Engine) onClose(fn func()) (cancel func()) {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closers == nil {
		e.closers = map[int]func(){}
	}
	id := e.nextCloser
	e.nextCloser++
	e.closers[id] = fn
	return func() {
		e.closeMu.Lock()
		defer e.closeMu.Unlock()
		delete(e.closers, id)
	}
}

// Registry returns the current snapshot.
func (e *Engine) Registry() *Registry { return e.snapshot.Load() }

// Options returns the options the engine runs with, defaults filled in.
func (e *Engine) Options() Options { return e.opts }

// isEnabled asks a tool whether it is enabled, within the member timeout: a tool
// whose isEnabled hangs is hidden, not a reason for loading to hang.
func (e *Engine) isEnabled(t *Tool) (bool, error) {
	if e.policy.Load().rules.DeniesTool(t.Name()) {
		return false, nil // a tool-level deny hides the tool
	}
	return t.enabled(context.Background())
}
