// Package cli is the luatool command: flag parsing, wiring of the engine with the
// standard tools and host modules, and terminal output. cmd/luatool calls Main; the
// CLI tests in tests/ register Main in process with testscript.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/luatool/luatool/bindings"
)

// Exit codes.
const (
	ExitOK    = 0 // success
	ExitTool  = 1 // the tool result is an error, or the call was denied
	ExitUsage = 2 // usage error, or tools failed to load
)

// config is the parsed command line.
type config struct {
	tools     []string
	noBuiltin bool
	root      string
	timeout   time.Duration
	json      bool
	yes       bool
	format    string
	debounce  time.Duration
	poll      bool
	mode      string
	allow     []string
	ask       []string
	deny      []string
	settings  string
	http      string
	noWatch   bool
	strict    bool
	// resultsDir is --results-dir: where results too large to show inline go.
	resultsDir string
	// noPrompt keeps asks off the terminal: serve's stdin is the protocol.
	noPrompt bool
}

// command is one subcommand.
type command struct {
	usage string
	help  string
	run   func(a *app, args []string) int
}

var commands = map[string]command{
	"list":     {"list", "list the tools, with their flags", runList},
	"describe": {"describe NAME", "show a tool's prompt, flags and schema as merged with the defaults", runDescribe},
	"call":     {"call NAME [JSON|-]", "call a tool through the whole pipeline (input as an argument, - for stdin, none for {})", runCall},
	"new":      {"new NAME [DIR]", "scaffold a tool file and its test (DIR: the first --tools directory, else .)", runNew},
	"run":      {"run FILE|-", "run a turn: a JSON array of tool_use blocks, orchestrated; prints the tool_results", runRun},
	"schema":   {"schema [--format F]", "print tool definitions for a model API: anthropic (default), openai or mcp", runSchema},
	"check":    {"check [DIR...]", "load tool files and report every problem with file:line", runCheck},
	"test":     {"test [DIR...]", "run the *_test.lua files beside the tools (default: the tool directories)", runTest},
	"version":  {"version", "print the version", runVersion},
	"serve":    {"serve [--http ADDR]", "offer the tools to MCP clients over stdio, or streamable HTTP at ADDR; reloads as files change", runServe},
	"watch":    {"watch", "reload tools as their files change, printing each reload and problem", runWatch},
}

// app is one run of the command.
type app struct {
	cfg    config
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	displayOnce sync.Once
	disp        *display
	// normalGC, when set, restores the collector's defaults once tools are loaded
	// (see quickStart).
	normalGC func()
}

// display is what a person sees on stderr (see display).
func (a *app) display() *display {
	a.displayOnce.Do(func() { a.disp = newDisplay(a.stderr) })
	return a.disp
}

// Main runs the luatool command with args (without the program name) and returns
// the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	fs := a.flags()
	positional, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		a.usage(stdout)
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "luatool: %v\n", err)
		a.usage(stderr)
		return ExitUsage
	}
	if len(positional) == 0 {
		a.usage(stderr)
		return ExitUsage
	}
	name, rest := positional[0], positional[1:]
	cmd, ok := commands[name]
	if !ok {
		msg := fmt.Sprintf("luatool: unknown command %q", name)
		if s := bindings.Suggest(name, commandNames()); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		fmt.Fprintln(stderr, msg)
		a.usage(stderr)
		return ExitUsage
	}
	switch name {
	case "call", "run", "list", "describe", "schema", "check":
		a.quickStart()
	}
	return cmd.run(a, rest)
}

// quickStart makes the garbage collector run less while a one-shot command loads its
// tools, which is most of its start-up time: a heap up to 64 MiB is not collected
// until the tools are loaded (open calls normalGC). Other commands (long-running,
// or running many engines as test does) keep the default throughout.
func (a *app) quickStart() {
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(64 << 20)
	a.normalGC = func() {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

func (a *app) flags() *flag.FlagSet {
	fs := flag.NewFlagSet("luatool", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("tools", "load tools from `DIR` too (repeatable; later directories override earlier ones by name)", func(s string) error {
		a.cfg.tools = append(a.cfg.tools, s)
		return nil
	})
	fs.BoolVar(&a.cfg.noBuiltin, "no-builtin", false, "leave out the embedded standard tools")
	fs.StringVar(&a.cfg.root, "root", "", "the workspace `DIR` tools may read (default: the current directory)")
	fs.DurationVar(&a.cfg.timeout, "timeout", 0, "bound each call by `DURATION` (default 2m)")
	fs.BoolVar(&a.cfg.json, "json", false, "print machine-readable JSON")
	fs.BoolVar(&a.cfg.yes, "yes", false, "answer permission asks with allow")
	fs.StringVar(&a.cfg.mode, "mode", "", "the permission `MODE`: default, acceptEdits, plan, bypassPermissions or dontAsk")
	fs.Func("allow", "allow calls matching `RULE`, e.g. 'Bash(git status)' (repeatable)", func(s string) error {
		a.cfg.allow = append(a.cfg.allow, s)
		return nil
	})
	fs.Func("ask", "ask before calls matching `RULE` (repeatable)", func(s string) error {
		a.cfg.ask = append(a.cfg.ask, s)
		return nil
	})
	fs.Func("deny", "deny calls matching `RULE` (repeatable); a bare tool name hides the tool", func(s string) error {
		a.cfg.deny = append(a.cfg.deny, s)
		return nil
	})
	fs.StringVar(&a.cfg.settings, "settings", "", "read permission settings from `FILE` too")
	fs.StringVar(&a.cfg.format, "format", "anthropic", "schema: the API `FORMAT`: anthropic, openai or mcp")
	fs.DurationVar(&a.cfg.debounce, "debounce", 0, "watch, serve: wait until a directory is quiet for `DURATION` before reloading (default 50ms)")
	fs.BoolVar(&a.cfg.poll, "poll", false, "watch, serve: read the directories every second instead of waiting for file events")
	fs.StringVar(&a.cfg.http, "http", "", "serve: streamable HTTP at `ADDR` (host:port; a bare :port is bound to 127.0.0.1), path /mcp")
	fs.BoolVar(&a.cfg.noWatch, "no-watch", false, "serve: do not reload tools as their files change")
	fs.StringVar(&a.cfg.resultsDir, "results-dir", "", "write results too large to show inline to `DIR`, and keep them (default: a temporary directory removed on exit)")
	fs.BoolVar(&a.cfg.strict, "strict", false, "list, schema: exit 2 when any tool failed to load or to describe itself")
	return fs
}

// parseInterspersed parses flags wherever they stand among the arguments; "--" ends
// flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (a *app) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: luatool [flags] <command> [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-28s %s\n", commands[n].usage, commands[n].help)
	}
	fmt.Fprintln(w, "\nflags:")
	fs := a.flags()
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  --%-26s %s\n", strings.TrimSpace(f.Name+" "+name), usage)
	})
	fmt.Fprintln(w, "\nexit codes: 0 success, 1 a tool result is an error or a call was denied (test: a case failed), 2 usage or load error")
}

func (a *app) errorf(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(a.stderr, "luatool: %s\n", strings.ReplaceAll(msg, "\n", "\nluatool: "))
	return ExitUsage
}

// isTerminal reports whether r is a terminal (not merely a character device such as
// /dev/null).
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
