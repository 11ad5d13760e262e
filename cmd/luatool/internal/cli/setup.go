package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sessions "github.com/luatool/luatool/session"
	"github.com/luatool/luatool/session/redisstore"

	"github.com/luatool/luatool/engine/codemode"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/settings"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/netpolicy"
	"github.com/luatool/luatool/scripts"
)

// session is an engine wired for one command, with the diagnostics of its load.
type session struct {
	eng        *engine.Engine
	diags      []diag.Diagnostic
	results    string
	ownResults bool
	// store is the session store of --state; nil for the engine's memory.
	store sessions.Store
	// closeStore releases the session store of --state; nil for memory.
	closeStore func()
	// network is the host's network policy the http module enforces.
	network netpolicy.Policy
	// served is what the engine's policy was built from, for a reload.
	served *servedSettings
}

// close closes the engine, which stops the background commands its calls started:
// they end with the command that started them (luatool serve, run or call). It
// removes the results directory when the run made it: the process that persisted
// the results is ending, so nothing will read them any more. A --results-dir is
// kept. It also lets go of the session store.
func (s *session) close() {
	if s.eng != nil {
		s.eng.Close()
	}
	if s.ownResults {
		os.RemoveAll(s.results)
	}
	if s.closeStore != nil {
		s.closeStore()
	}
}

// sessionStore opens the store of --state: nil (the engine's memory) when none is
// given, a Redis server for a redis://, rediss:// or unix:// URL. A server that
// cannot be reached is an error naming its address, and the command does not start:
// a wrong address would otherwise look like a store that is down, and a process
// started unready serves nothing until it comes (readiness, /readyz, is the health
// check's to report while serving). go-redis's own log lines go to the command's
// logger from here on.
func (a *app) sessionStore() (sessions.Store, func(), error) {
	if a.cfg.state == "" {
		return nil, nil, nil
	}
	redisstore.LogTo(a.logger())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := redisstore.New(ctx, a.cfg.state, redisstore.Options{Observe: a.observeStore})
	if err != nil {
		return nil, nil, fmt.Errorf("--state: %w (luatool does not start without the session store it is given: start the server, correct the URL, or leave --state out to keep sessions in this process's memory)", err)
	}
	return st, func() { st.Close() }, nil
}

// sources lists the tool directories in order: the embedded standard set,
// $XDG_CONFIG_HOME/luatool/tools, the project's ROOT/.luatool/tools, then each
// --tools DIR. The two conventional directories are used only when they exist, and
// the project's only when the folder is trusted (see project); a --tools directory
// that does not exist is an error.
func (a *app) sources() ([]engine.Source, error) {
	proj, err := a.project()
	if err != nil {
		return nil, err
	}
	var srcs []engine.Source
	if !a.cfg.noStandardTools {
		var src engine.Source
		src, a.unloaded = standardSource(a.callOnly)
		srcs = append(srcs, src)
	}
	for _, dir := range []string{userToolsDir(), proj.tools} {
		if dir == "" {
			continue
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			srcs = append(srcs, engine.DirSource(dir))
		}
	}
	for _, dir := range a.cfg.tools {
		if err := needDir("--tools", dir); err != nil {
			return nil, err
		}
		srcs = append(srcs, engine.DirSource(dir))
	}
	return srcs, nil
}

// userToolsDir is the user's tool directory, $XDG_CONFIG_HOME/luatool/tools; "" when
// there is no configuration directory.
func userToolsDir() string {
	dir := userConfigDir(home(), os.Getenv("XDG_CONFIG_HOME"))
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "luatool", "tools")
}

// bounded returns a context bounded by the call timeout, for the tool members the
// CLI asks directly (flags, prompts, renderings): a member that never returns must not
// hang the command.
func (a *app) bounded() (context.Context, context.CancelFunc) {
	timeout := a.cfg.timeout
	if timeout <= 0 {
		timeout = engine.DefaultTimeout
	}
	return context.WithTimeout(context.Background(), timeout)
}

// open builds the engine over srcs with the standard host modules confined to the
// root. Results too large to show inline are written to a directory of this run's own
// (or --results-dir), which the file tools may read too, so that the model can open
// what it is pointed at; close removes the run's own directory.
func (a *app) open(srcs []engine.Source) (*session, error) {
	root, err := a.projectRoot()
	if err != nil {
		return nil, err
	}
	set, err := a.settingsFor(root)
	if err != nil {
		return nil, err
	}
	network, err := set.Network.Policy()
	if err != nil {
		return nil, err // each entry was checked as it was read
	}
	env, err := a.toolEnv(set.Env)
	if err != nil {
		return nil, err
	}
	a.display().redactWith(env.Redactor())
	roots := append([]string{root}, set.Permissions.AdditionalDirectories...)
	results, ownResults, err := a.resultsDir()
	if err != nil {
		return nil, err
	}
	proj, err := a.project() // decided already, by settingsFor
	if err != nil {
		return nil, err
	}
	s := &session{results: results, ownResults: ownResults, network: network,
		served: &servedSettings{root: root, roots: roots, set: set, project: proj.settings, hash: proj.hash}}
	store, closeStore, err := a.sessionStore()
	if err != nil {
		s.close()
		return nil, err
	}
	s.store, s.closeStore = store, closeStore
	mods, err := hostmod.StandardWith(hostmod.Options{Roots: append(roots, results), Shell: a.cfg.shellOptions(), HTTP: hostmod.HTTPOptions{Policy: network}})
	if err != nil {
		s.close()
		return nil, err
	}
	perms, hks, protected := a.policyOf(root, roots, set)
	var eng *engine.Engine
	var progressMu sync.Mutex
	eng, err = engine.New(engine.Options{
		OnProgress: func(ev engine.ProgressEvent) {
			progressMu.Lock()
			defer progressMu.Unlock()
			if t, ok := eng.Registry().Lookup(ev.Tool); ok && !a.cfg.json {
				ctx, cancel := a.bounded()
				defer cancel()
				a.display().progress(t.RenderProgress(ctx, ev.Data))
			}
		},
		Tools:                 standardGoTools(srcs),
		Loaders:               []engine.Loader{luaload.New(luaload.Options{Modules: mods, KeepStateFor: a.callOnly, Lint: a.lint})},
		Home:                  home(),
		MaxToolUseConcurrency: maxToolUseConcurrency(),
		UnloadedTools:         a.unloaded,
		Logger:                a.logger(),
		ResultsDir:            results,
		Sessions:              store,
		Timeout:               a.cfg.timeout,
		Cwd:                   root,
		Roots:                 roots,
		Protected:             protected,
		Permissions:           perms,
		CanUseTool:            a.canUseTool(),
		Client:                a.terminalClient(),
		ApprovalHint:          a.approvalHint,
		Env:                   env,
		Hooks:                 hks,
		Middleware:            a.middleware,
	})
	if err != nil {
		s.close()
		return nil, err
	}
	s.eng, s.diags = eng, eng.Load(srcs...)
	a.warnEnvTools(env, eng.Registry())
	if a.normalGC != nil {
		a.normalGC()
	}
	return s, nil
}

// shellOptions are the shell module's options of the flags: the sandbox on unless
// --no-shell-sandbox, the network off unless --shell-network, and the variables of
// --shell-env passed through.
func (c *config) shellOptions() hostmod.ShellOptions {
	return hostmod.ShellOptions{NoSandbox: c.noShellSandbox, Network: c.shellNetwork, PassEnv: c.shellEnv}
}

// home is the user's home directory, or "" when it cannot be told.
func home() string {
	h, _ := os.UserHomeDir()
	return h
}

// standardGoTools are the standard tools written in Go, offered where srcs hold
// the embedded standard set (not with --no-builtin, nor for luatool check DIR):
// LuaScript, code mode (package engine/codemode).
func standardGoTools(srcs []engine.Source) []engine.ToolDef {
	if !slices.ContainsFunc(srcs, func(s engine.Source) bool { return s.Name == standardSourceName }) {
		return nil
	}
	return []engine.ToolDef{codemode.Tool(codemode.Options{})}
}

// standardSourceName names the embedded standard set's files in messages.
const standardSourceName = "<standard>"

// standardSource is the embedded standard set. LUATOOL_ENABLE_TASKS set to 0, false,
// no or off offers TodoWrite in place of the task list tools (TaskCreate, TaskGet,
// TaskList, TaskUpdate), as CLAUDE_CODE_ENABLE_TASKS does for the original's.
//
// When only names a standard tool that works alone, the source holds only what
// serves it (scripts.ToolFile): loading the whole set is most of what a process
// making one call would spend. unloaded then names the tools left out.
func standardSource(only string) (src engine.Source, unloaded []string) {
	var o scripts.Options
	switch strings.ToLower(strings.TrimSpace(os.Getenv("LUATOOL_ENABLE_TASKS"))) {
	case "0", "false", "no", "off":
		o.TodoWrite = true
	}
	if fsys, ok := scripts.ToolFile(o, only); ok {
		names := slices.DeleteFunc(scripts.ToolNames(o), func(n string) bool { return n == only })
		return engine.Source{Name: standardSourceName, FS: fsys}, names
	}
	return engine.Source{Name: standardSourceName, FS: scripts.ToolsWith(o)}, nil
}

// maxToolUseConcurrency is LUATOOL_MAX_TOOL_USE_CONCURRENCY, the batch limit of a
// turn; 0 (the engine's default) when unset or not a positive number, as in the
// original for its variable.
func maxToolUseConcurrency() int {
	n, err := strconv.Atoi(os.Getenv("LUATOOL_MAX_TOOL_USE_CONCURRENCY"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// permissions is the permission part of settingsFor.
func (a *app) permissions(root string) (rules.Settings, error) {
	set, err := a.settingsFor(root)
	return set.Permissions, err
}

// settingsFor reads the settings files (user, project at root when the folder is
// trusted, --settings) and the flags, merged in that order. Warnings go to stderr;
// any problem is an error naming the file or flag. A mode other than default,
// project allow rules and the project's network allow list are announced on stderr
// (see announcePermissions).
func (a *app) settingsFor(root string) (settings.Settings, error) {
	proj, err := a.project()
	if err != nil {
		return settings.Settings{}, err
	}
	fromFiles, warnings, err := readSettings(settingsPaths{Home: home(), ConfigHome: os.Getenv("XDG_CONFIG_HOME"), Project: proj.settings, Explicit: a.cfg.settings})
	for _, w := range warnings {
		a.logger().Warn(w)
	}
	if err != nil {
		return settings.Settings{}, err
	}
	fromFlags, err := a.cfg.flagSettings(root)
	if err != nil {
		return settings.Settings{}, err
	}
	merged := settings.Merge(fromFiles, fromFlags)
	a.announcePermissions(merged.Permissions)
	a.announceNetwork(merged.Network)
	return merged, nil
}

// approvalHint tells the person running luatool how to allow a call that needed
// approval when no one could be asked: the flags of this command line.
func (a *app) approvalHint(rules []string) string {
	var allow []string
	for _, r := range rules {
		allow = append(allow, "--allow "+shellQuote(r))
	}
	switch {
	case a.cfg.noPrompt && len(allow) > 0:
		return "To allow it, start the server with " + strings.Join(allow, " ") + " or put the rule in a settings file."
	case a.cfg.noPrompt:
		return "To allow it, start the server with an --allow rule or put one in a settings file."
	case len(allow) > 0:
		return "To allow it, run luatool with " + strings.Join(allow, " ") + " or --yes, or on a terminal to be asked."
	default:
		return "To allow it, run luatool with --yes, or on a terminal to be asked."
	}
}

// shellQuote quotes s for a POSIX shell, in single quotes.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// canUseTool answers asks: allow with --yes, a prompt on a terminal (not for serve),
// otherwise none (every ask is a deny). --yes does not answer for a write to a
// protected path, which only a person may allow: that goes to the terminal's prompt
// when there is one, and is refused otherwise.
func (a *app) canUseTool() engine.CanUseToolFunc {
	prompt := a.prompt()
	if !a.cfg.yes {
		return prompt
	}
	return func(ctx context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		switch {
		case !req.Protected:
			return engine.PermissionDecision{Behavior: rules.Allow}, nil
		case prompt != nil:
			return prompt(ctx, req)
		}
		return engine.PermissionDecision{}, errors.New("--yes does not answer for a write to a protected path; only a person at a terminal can allow it. " + req.Message)
	}
}

// prompt asks the person at the terminal, or is nil when there is none (or for
// serve, whose stdin is the protocol).
func (a *app) prompt() engine.CanUseToolFunc {
	if a.cfg.noPrompt || !isTerminal(a.stdin) {
		return nil
	}
	in := a.lines()
	return func(ctx context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		a.askMu.Lock() // one prompt at a time, when a turn runs calls side by side
		defer a.askMu.Unlock()
		defer a.display().pause()()
		fmt.Fprintf(a.stderr, "%s\n  %s\n", req.Tool.RenderToolUse(ctx, req.Input), req.Message)
		always := ""
		if len(req.Suggestions) > 0 {
			always = fmt.Sprintf("\n  [a] yes, and allow %s for this session", strings.Join(req.Suggestions, ", "))
		}
		fmt.Fprintf(a.stderr, "Allow %s?\n  [y] yes, once%s\n  [n] no (type a reason after n to tell the model)\n> ", req.Description, always)
		line, err := in.ReadString('\n')
		if err != nil {
			return engine.PermissionDecision{Behavior: rules.Deny}, nil
		}
		line = strings.TrimSpace(line)
		switch strings.ToLower(line) {
		case "y", "yes":
			return engine.PermissionDecision{Behavior: rules.Allow}, nil
		case "a", "always":
			return engine.PermissionDecision{Behavior: rules.Allow, AddRules: req.Suggestions}, nil
		}
		if reason, ok := strings.CutPrefix(line, "n "); ok {
			return engine.PermissionDecision{Behavior: rules.Deny, Message: strings.TrimSpace(reason)}, nil
		}
		return engine.PermissionDecision{Behavior: rules.Deny}, nil
	}
}

// terminalClient is the engine's client (ctx:elicit, ctx:sample): the person at
// the terminal, where prompt would ask one (see terminalClient).
func (a *app) terminalClient() *terminalClient {
	c := &terminalClient{out: a.stderr, mu: &a.askMu, pause: func() func() { return a.display().pause() }}
	if a.prompt() != nil {
		c.in = a.lines
	}
	return c
}

// report prints load diagnostics to stderr; it is used by commands that go on
// serving the tools that loaded.
func (a *app) report(diags []diag.Diagnostic) {
	for _, d := range diags {
		fmt.Fprintf(a.stderr, "luatool: %s\n", d)
	}
}
