// Package cli is the luatool command: flag parsing, wiring of the engine with the
// standard tools and host modules, and terminal output. cmd/luatool calls Main; the
// CLI tests in tests/ register Main in process with testscript.
package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/mcpserver"
	"github.com/luatool/luatool/internal/spell"

	"golang.org/x/term"
)

// Exit codes.
const (
	ExitOK    = 0 // success
	ExitTool  = 1 // the tool result is an error, or the call was denied
	ExitUsage = 2 // usage error, or tools failed to load
)

// config is the parsed command line.
type config struct {
	tools           []string
	noStandardTools bool
	root            string
	timeout         time.Duration
	json            bool
	yes             bool
	format          string
	debounce        time.Duration
	debounceMaxWait time.Duration
	poll            bool
	mode            string
	allow           []string
	ask             []string
	deny            []string
	settings        string
	http            string
	noWatch         bool
	// maxInFlight is serve's --max-in-flight: the most stdio requests handled at once.
	maxInFlight int
	strict      bool
	run         string
	// resultsDir is --results-dir: where results too large to show inline go.
	resultsDir string
	// state is --state: the URL of the session store, "" for memory; once the
	// flags are read, with the password given apart from it (see stateURL).
	state string
	// noPrompt keeps asks off the terminal: serve's stdin is the protocol.
	noPrompt bool
	// revoke and listTrusted are trust's --revoke and --list.
	revoke      bool
	listTrusted bool
	// newPrompt and newResource are new's --prompt and --resource.
	newPrompt, newResource bool
	// noShellSandbox, shellNetwork and shellEnv configure the shell module (see
	// shellOptions).
	noShellSandbox bool
	shellNetwork   bool
	shellEnv       []string
	// serve holds serve's flags for HTTP and logs (see serveflags.go).
	serve serveConfig
	// allowNet and denyNet are the host patterns of --allow-net and --deny-net: the
	// network policy the flags add to the settings files'.
	allowNet, denyNet []string
	// env are the names of --env: variables passed through to tools (env.get).
	env []string
	// install holds the flags of install and dev (see install.go).
	install installConfig
}

// command is one subcommand. Its texts are the whole of its documentation on the
// command line: help is its line on the usage screen, about (with the flags that
// matter to it) what luatool help NAME adds.
type command struct {
	usage string
	help  string
	about string
	flags []string
	// operand is what the first argument is, for completion (see complete).
	operand operand
	run     func(a *app, args []string) int
}

var commands = map[string]command{
	"list": {
		usage: "list",
		help:  "list the tools, with their flags",
		about: `Loads the tools (the embedded set, then the tool directories) and prints one line
each: the name, the flags the tool gives for an empty input (read-only,
concurrency-safe, destructive, open-world, deferred) and the file it came from. A
bare --deny NAME hides a tool. When a tool file fails to load, the problem goes to
stderr and the others are listed; with --strict the exit code is then 2, so that a
script never takes part of the set for the whole. --json prints an array of {name, aliases, source, readOnly, concurrencySafe,
destructive, openWorld, deferred}.`,
		flags: []string{"tools", "no-standard-tools", "root", "deny", "settings", "env", "timeout", "strict", "json"},
		run:   runList,
	},
	"describe": {
		usage: "describe NAME",
		help:  "show a tool's prompt, flags and schema as merged with the defaults",
		about: `Shows one tool as the engine sees it once the defaults are merged: its user-facing
name, aliases, search hint, flags for an empty input, interrupt behaviour, when its
results are persisted, the prompt the model reads, its input and output schemas, and
the limits every call runs under, the sandbox shell commands run in, the hosts the
tool may reach (its network member) and the host's network policy. NAME may
be an alias; a mistyped name gets a suggestion. --json prints the same as one
object.`,
		flags:   []string{"tools", "no-standard-tools", "root", "deny", "settings", "env", "timeout", "allow-net", "deny-net", "no-shell-sandbox", "shell-network", "shell-env", "json"},
		run:     runDescribe,
		operand: toolOperand,
	},
	"call": {
		usage: "call NAME [JSON|-]",
		help:  "call a tool through the whole pipeline (input as an argument, - for stdin, none for {})",
		about: `Calls one tool as a model's tool_use would: input validation against the schema
(with the coercions and defaults models rely on), validateInput, permissions, the
call and mapResult. stdout gets exactly the content the model would get; the tool
use, the tool's summary of the outcome and what it printed go to stderr.

The input is a JSON object: the argument, stdin with -, or {} when there is none.
Input that is not JSON is a usage error naming the line and column. A call that needs
permission is asked on a terminal, allowed with --yes, and denied otherwise. A
tool's form (ctx:elicit) is asked on a terminal, a property at a time (Ctrl-D
cancels), and declined otherwise; there is no model for ctx:sample, which answers
"unavailable". --json prints the tool_result block: {"type", "tool_use_id",
"content", "is_error"}.

Of the standard tools, only the one called is loaded (all of them for ToolSearch,
LuaScript, or a name that is not a standard tool's), which is most of what starting
luatool costs; the tool directories are loaded whole.

Exit code 1 when the result is an error or the call was denied.`,
		flags:   []string{"tools", "no-standard-tools", "root", "timeout", "mode", "allow", "ask", "deny", "settings", "env", "yes", "results-dir", "state", "redis-password-file", "allow-net", "deny-net", "no-shell-sandbox", "shell-network", "shell-env", "json"},
		run:     runCall,
		operand: toolOperand,
	},
	"new": {
		usage: "new NAME [DIR]",
		help:  "scaffold a tool file and its test (DIR: the first --tools directory, else .)",
		about: `Writes a working tool named NAME and its test file into DIR (default: the first
--tools directory, else the current one), and, when DIR has none, luatool.d.lua
(type definitions of the contract, ctx, the host modules and the test modules) with
a .luarc.json that points the Lua language server at it. An existing file is never
overwritten: new refuses instead.

With --prompt, NAME.lua is an MCP prompt instead (kind = "prompt": arguments and a
get that returns the messages); with --resource, an MCP resource (kind =
"resource": a URI, or a URI template, and a read that returns the content). serve
offers both to MCP clients; list and check show them.`,
		flags: []string{"tools", "prompt", "resource"},
		run:   runNew,
	},
	"run": {
		usage: "run FILE|-",
		help:  "run a turn: a JSON array of tool_use blocks, orchestrated; prints the tool_results",
		about: `Runs the tool_use blocks of one model turn as the engine orchestrates them:
consecutive calls that are concurrency-safe for their input run side by side, every
other call runs alone, and every block gets exactly one tool_result, printed in the
order of the input. FILE is read, or stdin with -.

The input is an array of tool_use blocks:

  [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "go.mod"}},
   {"type": "tool_use", "id": "toolu_2", "name": "Grep", "input": {"pattern": "TODO"}}]

or an assistant message, whose tool_use blocks are taken and other blocks (text,
thinking) skipped:

  {"role": "assistant", "content": [
    {"type": "text", "text": "Let me look."},
    {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "go.mod"}}]}

A block needs a "name"; "input" defaults to {}, and a block without "type" is taken
as a tool_use. Ids must be unique; a block without one is given toolu_N, N its
position in the array counted from 1. Input that is not JSON, or not of this shape, is
a usage error naming the line and column, and the block.

Output: per block, a line "── ID NAME" ("(error)" after a failed one) and the content
the model gets. --json prints the array of tool_result blocks. Exit code 1 when any
result is an error.`,
		flags: []string{"tools", "no-standard-tools", "root", "timeout", "mode", "allow", "ask", "deny", "settings", "env", "yes", "results-dir", "state", "redis-password-file", "allow-net", "deny-net", "no-shell-sandbox", "shell-network", "shell-env", "json"},
		run:   runRun,
	},
	"schema": {
		usage: "schema [--format F]",
		help:  "print tool definitions for a model API: anthropic (default), openai, mcp, gemini or gemini-openapi",
		about: `Prints the definitions of the tools, as JSON, in the shape a model API takes:
anthropic (the default), openai, or mcp (the tools of an MCP tools/list). What the
export had to change for an API (a name with dots, a schema OpenAI's strict mode does
not take as written) is noted on stderr; a name the API cannot take at all is an
error. A tool that failed to load, or whose prompt fails, is left out and named on
stderr; like list, --strict then exits 2.

Deferred tools (LuaScript, WebFetch, a tool with shouldDefer) go to anthropic with
defer_loading: true: the Messages API keeps them out of the model's context until
its tool search finds them, so the request must hold a tool search tool as well,
{"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"} (or
the bm25 one), or a search of its own that answers with tool_reference blocks.
openai and gemini have no such mark and leave them out (ToolSearch finds them);
either way stderr names each.`,
		flags: []string{"format", "tools", "no-standard-tools", "root", "deny", "settings", "env", "timeout", "strict"},
		run:   runSchema,
	},
	"check": {
		usage: "check [DIR|FILE...]",
		help:  "load tool files and report every problem with file:line",
		about: `Loads tool files and reports every problem at once, one line each with file:line:
syntax errors, unknown members (with a did-you-mean), misspelled schema keywords,
required names that are not properties, members of the wrong type, names and schemas a
model API rejects, rules that name no tool; in the tool's code, input fields the schema
does not declare, unknown ctx methods and module functions, and member functions with
more parameters than they are given; then it asks every member it can without a model's
input (the prompt; description, userFacingName, the flags and the renderings for an
empty input when the schema takes one) and reports those that fail. With DIRs, only the files of those directories (a FILE alone, with its directory's lib/); without, every tool
directory and the embedded set. Ends with the counts; exit code 2 when any file has
an error. --json prints {"ok", "tools", "diagnostics"}.`,
		flags: []string{"tools", "no-standard-tools", "root", "deny", "settings", "env", "json"},
		run:   runCheck,
	},
	"test": {
		usage: "test [DIR|FILE...]",
		help:  "run the *_test.lua files beside the tools (default: the tool directories)",
		about: `Runs the Lua tests of tools: the *_test.lua files of each DIR, or the test FILEs
given (default: the files of the tool directories). Each case runs in a fresh Lua
state, in a new temporary root, with a new engine holding the tools of its test
file's directory (over the embedded set, unless --no-standard-tools) and no settings files:
tests are hermetic (env gives the tools nothing). A test file may require test, assert
and json, and the host modules its tools have (fs, glob, grep, shell, path), confined
as the tools' are. t:stub(module, fns) replaces a module for the tools' calls of the
rest of a case, so that a tool that reaches the world is tested without it.

--run PATTERN runs only the cases whose names match the Go regular expression
PATTERN (as in go test; the rest are counted as skipped); a pattern that matches no
case is a usage error. Prints a line per case and the counts; a failed assertion
names the test file and line. Exit code 1 when a case failed. --json for CI.`,
		flags: []string{"run", "tools", "no-standard-tools", "timeout", "allow-net", "deny-net", "no-shell-sandbox", "shell-network", "shell-env", "json"},
		run:   runTest,
	},
	"version": {
		usage: "version",
		help:  "print the version",
		about: `Prints luatool's version: the module version of a released build, else "devel"
with the VCS revision (+dirty when the tree had uncommitted changes) and the commit
time; then the versions of Go and gopher-lua. --json prints the fields.`,
		flags: []string{"json"},
		run:   runVersion,
	},
	"serve": {
		usage: "serve [--http ADDR]",
		help:  "offer the tools to MCP clients over stdio, or streamable HTTP at ADDR; reloads as files change",
		about: `Offers the tools to MCP clients: over stdin and stdout, which then carry the protocol
only, or over streamable HTTP at ADDR with --http (path /mcp; a bare :port binds to
127.0.0.1). Tool files are reloaded as they change, unless --no-watch, and clients
are told when the list changes (over HTTP, see below). A call that needs permission
is put to the user through the client when the client can ask; otherwise the rules
and the mode decide, and an ask is a deny. A project folder that is not trusted is
never asked about (stdin is the protocol): its configuration is skipped with one
notice on stderr (see luatool help trust).

Which tools: with --tools, those of the directories given (and the user's and the
project's), not the standard tools (Read, Write, Edit, Bash, ...), which a client
such as Claude Code has of its own; --standard-tools offers them too. Without
--tools, the standard tools. The first log line names the root and where the tools
come from. The root is --root; without it the current directory, refused when that
is / or the home directory (a client may start the server anywhere).

Over stdio, no input ends the session: a malformed message gets a JSON-RPC error
(-32700 parse error, -32600 invalid request) with its id when one can be found, a
malformed notification is dropped, and ids come back exactly as sent. A message is
one line of at most 4 MiB, nested at most 256 deep. Batches are answered in sessions
of protocol 2025-03-26 and before, and refused from 2025-06-18, which removed them.
At most --max-in-flight requests are handled at once; while that many are in flight,
stdin is not read, so a client that writes without reading is held back by the
pipe. At the end of stdin the server answers every request it has read (an open
subscriptions/listen is ended), then exits.

A tools/call of a name the client was not listed is the protocol error MCP
specifies, -32602, whose message is "No such tool available: NAME" with the closest
listed name ("Did you mean Grep?"); every other failure is a result with isError.

Over HTTP, --tokens FILE authenticates clients by bearer token: one principal a
line, NAME TOKEN [PROFILE], with blank lines and # comments; a name is letters,
digits and ._@-, a token 16 bytes or more (openssl rand -hex 32), each name and
token once. PROFILE is a settings file (relative to FILE) whose rules join the
server's and whose mode replaces it; a tool it denies by name is absent from that
principal's tools/list and unknown to its calls. A bad line, or a FILE others may
read (not chmod 600), stops serve with file:line. Each principal has its own
session: ctx.state, the files the model read, "always" answers, discovered tools.
Without --tokens, clients are the local user, and only this user may be one: on
loopback, serve makes a random token at each start, prints it once and keeps it in
luatool/http-HOST-PORT.token of $XDG_RUNTIME_DIR (else $XDG_STATE_HOME, else
~/.local/state), a file only the user may read, and clients send it as
"Authorization: Bearer TOKEN"; on a unix socket (--http unix:PATH), only the user
may open it (mode 0600). An address that is not loopback is refused without
--tokens, and --insecure-no-auth serves any address to anyone who reaches it. A
missing or wrong token is answered 401 with a WWW-Authenticate header; with
--auth-server URL it names the OAuth protected-resource metadata at
/.well-known/oauth-protected-resource/mcp, which names URL (luatool still checks the
tokens of FILE only). Browsers may call only from the origins of --allow-origin (and
loopback pages, on a loopback address).

Limits over HTTP: request headers within 10s and 64 KiB, a body within 10s of them
and 4 MiB (408, 413), --max-calls tool calls in flight per principal (default 16;
past it a call is answered the JSON-RPC error -32000 at once). Calls that must run
alone wait only for the calls of their own principal, and a principal's calls hold
at most half of the slots that run Lua code. A notifications/cancelled ends the call
of its principal with that request id, and a client that goes away ends its calls.
HTTP clients of protocol 2026-07-28 and later are told of list and resource changes
on their subscriptions/listen stream, and a tool asks them (ctx:sample, ctx:elicit,
permission asks) in rounds; earlier ones see changes at their next list, and can be
asked only in a session (--sessions).
Instances behind a load balancer share each principal's session only with one
--state store.

Over HTTP every request stands alone, as instances behind a load balancer need.
--sessions keeps a session (Mcp-Session-Id) for each client that opens one with
initialize: state of its own (as over stdio), its own stream (GET) for list and
resource changes outside a call, its end by DELETE, and event ids, so that a client
whose stream broke resumes it with Last-Event-ID. Sessions live in the process: use --sessions for one instance, or
behind a load balancer that routes by Mcp-Session-Id. A session is its principal's
only (403 to another), a principal holds at most 64 (429 past them), and one idle
for 30 minutes ends; a notifications/cancelled on a session ends that session's
call, and a call whose connection drops runs on, for the client to resume.
Requests that name no session, those of protocol 2026-07-28 among them, are
served as without --sessions.

SIGTERM or SIGINT (over stdio, also the end of stdin) stops serve: it takes no new
call (over HTTP the listener closes), lets the calls in flight finish for
--shutdown-grace (default 30s), then cancels those still running, and exits 0.
SIGHUP reads the --tokens file again: a principal it no longer lists is refused at
its next request, open connections stay; a file that does not read keeps the
tokens in force. Editing the file does nothing until SIGHUP. SIGHUP reads the
settings files again too (user, the trusted project's, --settings): their allow,
ask and deny rules, mode and hooks apply from the next call, and a tool a deny
rule names is hidden; network, env and additionalDirectories wait for a restart. A
project settings file changed since its folder was trusted is kept as it was
trusted until luatool trust; a file that does not read keeps the settings in force.

Everything serve logs goes to stderr through one logger, slog's text format or
--log-format json: the sandbox shell commands run in, reloads and load problems,
what tools print, and one "tool call" line per call with the principal, the tool,
the duration and the outcome (ok, invalid, denied, cancelled, error, asked,
refused), for a call its client cancelled or left, why and how long it took to end
after; never a token but the one serve makes for itself, printed once. With json,
every line on stderr is a JSON object, the CLI's own notices and errors included.

Every flag can be given by a variable instead: LUATOOL_ and its name in upper case,
- as _ (--state is LUATOOL_STATE), one value a line for a repeatable flag. A flag on
the command line beats its variable, which beats the default; a value the flag
refuses stops serve naming the variable. The --state store's password can come
from --redis-password-file or LUATOOL_REDIS_PASSWORD, out of ps.

/healthz (alive) and /readyz (tools loaded, the session store answering) are
answered without a token on the --http listener. --admin ADDR serves them again with
Prometheus /metrics, also without a token: put it where only monitoring reaches.
Metrics name tools and outcomes, never a principal or a token (see the README).`,
		flags: []string{"http", "tokens", "auth-server", "allow-origin", "insecure-no-auth", "max-calls", "sessions", "max-in-flight", "log-format", "shutdown-grace", "admin", "no-watch", "debounce", "debounce-max-wait", "poll", "tools", "standard-tools", "no-standard-tools", "root", "timeout", "mode", "allow", "ask", "deny", "settings", "env", "results-dir", "state", "redis-password-file", "allow-net", "deny-net", "no-shell-sandbox", "shell-network", "shell-env"},
		run:   runServe,
	},
	"trust": {
		usage: "trust [DIR]",
		help:  "trust a folder's project tools and settings (--revoke forgets it, --list lists)",
		about: `Records DIR (default: the project root, --root or the current directory) as a
trusted folder, so that its project configuration is used: the tool files of
DIR/.luatool/tools (and their lib/ modules), whose code runs as luatool loads them,
and DIR/.luatool/settings.json, whose mode and rules decide what calls may do. It
prints what the folder adds: the tool files, and everything the settings file sets
(mode, rules, directories, network lists, env, hooks). Until a folder is trusted its project configuration is
skipped: on a terminal the first command asks, showing what the folder would add;
otherwise, and always for serve, one notice on stderr names the command that
trusts it.

A trust covers the folder itself (its absolute path, symlinks resolved), not its
subfolders: a subfolder with a .luatool of its own is another project. The settings
file is trusted as it is: its SHA-256 is recorded, and once it changes (a pull, a
checkout), appears or goes, the folder is asked about again; a run reads it once,
and uses the bytes whose hash it checked. Tool files are not
hashed: they are the code worked on in the folder. What the command line names
(--tools DIR, --settings FILE) and the user's own $XDG_CONFIG_HOME/luatool need no
trust. Whatever the source, a mode other than default, and a project's allow rules,
are announced on stderr with the file that set them, once per command.

--revoke forgets DIR; --list prints the trusted folders and whether each trust still
holds (--json: an array of {path, settings, state}). The list is kept in
$XDG_CONFIG_HOME/luatool/trusted.json (default ~/.config/luatool/trusted.json),
rewritten whole and atomically.`,
		flags: []string{"revoke", "list", "root", "json"},
		run:   runTrust,
	},
	"watch": {
		usage: "watch",
		help:  "reload tools as their files change, printing each reload and problem",
		about: `The development loop: loads the tools, then reloads each tool directory as its files
change (however the editor saves), printing each reload and each problem with
file:line until interrupted: errors, and the warnings check prints of a file that loads
(its code read against its schema and ctx included). A broken save keeps the last good
version serving. It
needs a tool directory on disk (--tools DIR).`,
		flags: []string{"tools", "no-standard-tools", "root", "debounce", "debounce-max-wait", "poll", "deny", "settings"},
		run:   runWatch,
	},
}

// init adds help, whose run reads the table: in the literal, that would be an
// initialization cycle.
func init() {
	commands["help"] = command{
		usage: "help [COMMAND]",
		help:  "print this usage, or what a command does, its input and its flags",
		about: `Prints the usage of luatool, or with COMMAND what that command does, its input and
the flags that matter to it. luatool COMMAND --help prints the same.`,
		run:     runHelp,
		operand: commandOperand,
	}
}

// app is one run of the command.
type app struct {
	cfg    config
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// askMu is held while a question is on the terminal (a permission prompt, a
	// tool's form): one at a time.
	askMu sync.Mutex

	// terminal is whether a person is at the terminal to be asked: stdin and
	// stderr are both terminals.
	terminal bool
	// in is stdin by lines, shared by the prompts (see lines).
	in *bufio.Reader
	// projectUse is what of the project's configuration the command uses, once
	// decided (see project).
	projectUse *projectUse

	displayOnce sync.Once
	disp        *display
	// log, when set, is where the command's log lines go instead of the display:
	// serve's one logger (see logger).
	log *slog.Logger
	// envWarnings are serve's warnings about its LUATOOL_ variables, logged once
	// the logger is made (see flagsFromEnv).
	envWarnings []string
	// normalGC, when set, restores the collector's defaults once tools are loaded
	// (see quickStart).
	normalGC func()
	// callOnly, when set, is the one tool the command calls (luatool call): of the
	// standard set, only what serves it is loaded (see standardSource).
	callOnly string
	// lint asks the loader for what it sees wrong in a file without running it
	// (luatool check and watch; serve does not, to start sooner).
	lint bool
	// unloaded are the standard tools left out of the engine for callOnly.
	unloaded []string
	// observeStore, when serve's metrics are on, is told of every operation on a
	// Redis session store.
	observeStore func(op string, took time.Duration, err error)
	// middleware wraps every call of the engine: serve's metrics count calls in
	// flight with one (see serveMetrics).
	middleware []hooks.Middleware
	// serving, when set, is told where serve --http serves once it listens, and
	// the token it made for this run ("" with --tokens, or none): luatool dev
	// prints them (see dev.go).
	serving func(url, token, tokenFile string)
}

// display is what a person sees on stderr (see display).
func (a *app) display() *display {
	a.displayOnce.Do(func() { a.disp = newDisplay(a.stderr) })
	return a.disp
}

// Main runs the luatool command with args (without the program name) and returns
// the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, terminal: isTerminal(stdin) && isTerminal(stderr)}
	if len(args) > 0 && args[0] == completeCommand {
		// Before the flags are parsed: the words are a command line being typed.
		return a.complete(args[1:])
	}
	fs := a.flags()
	positional, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		// --help or -h: the help of the command it follows, if any.
		return runHelp(a, positional[:min(len(positional), 1)])
	}
	if err != nil {
		return a.flagError(err, args)
	}
	if len(positional) > 0 && positional[0] == "serve" {
		// serve, which runs in containers and under service managers, takes
		// every flag from the environment too (see flagsFromEnv).
		if a.envWarnings, err = flagsFromEnv(fs, serveFlagNames(), os.Environ()); err != nil {
			return a.errorf("%v", err)
		}
	}
	if a.cfg.state, err = a.stateURL(os.LookupEnv); err != nil {
		return a.errorf("%v", err)
	}
	if err := a.cfg.check(); err != nil {
		return a.errorf("%v", err)
	}
	if len(positional) == 0 {
		a.usage(stderr)
		return ExitUsage
	}
	name, rest := positional[0], positional[1:]
	cmd, ok := commands[name]
	if !ok {
		return a.unknownCommand(name)
	}
	switch name {
	case "call", "run", "list", "describe", "schema", "check":
		a.quickStart()
	}
	return cmd.run(a, rest)
}

// check refuses flag values that parse but mean nothing: a negative duration. Zero
// is what an absent flag leaves, and means the default.
func (c *config) check() error {
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{{"timeout", c.timeout}, {"debounce", c.debounce}, {"debounce-max-wait", c.debounceMaxWait}} {
		if d.value < 0 {
			return fmt.Errorf("--%s must be positive, got %v", d.flag, d.value)
		}
	}
	if c.maxInFlight < 0 {
		return fmt.Errorf("--max-in-flight must be positive, got %d", c.maxInFlight)
	}
	if c.debounceMaxWait > 0 && c.debounceMaxWait < c.debounce {
		return fmt.Errorf("--debounce-max-wait %v is shorter than --debounce %v: a change waits for quiet at most that long", c.debounceMaxWait, c.debounce)
	}
	return nil
}

// unknownCommand reports a command name that is not one, with the closest name and
// the usage.
func (a *app) unknownCommand(name string) int {
	msg := fmt.Sprintf("luatool: unknown command %q", name)
	if s := spell.Suggest(name, commandNames()); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	fmt.Fprintln(a.stderr, msg)
	a.usage(a.stderr)
	return ExitUsage
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

// renamedFlags maps the old names of renamed flags, still accepted so that client
// configurations written for them keep working, to their new names. Help shows the
// new names only.
var renamedFlags = map[string]string{"no-builtin": "no-standard-tools"}

func (a *app) flags() *flag.FlagSet {
	fs := flag.NewFlagSet("luatool", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("tools", "load tools from `DIR` too (repeatable; later directories override earlier ones by name)", func(s string) error {
		a.cfg.tools = append(a.cfg.tools, s)
		return nil
	})
	fs.BoolVar(&a.cfg.noStandardTools, "no-standard-tools", false, "leave out the embedded standard tools")
	fs.BoolVar(&a.cfg.noStandardTools, "no-builtin", false, "the old name of --no-standard-tools")
	fs.StringVar(&a.cfg.root, "root", "", "the project `DIR`: the file tools' workspace, whose .luatool/ holds the project's tools and settings (default: the current directory; call, run and serve refuse / and the home directory as that default)")
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
	fs.StringVar(&a.cfg.format, "format", "anthropic", "schema: the API `FORMAT`: anthropic, openai, mcp, gemini or gemini-openapi")
	fs.DurationVar(&a.cfg.debounce, "debounce", 0, "watch, serve: wait until a directory is quiet for `DURATION` before reloading (default 50ms)")
	fs.DurationVar(&a.cfg.debounceMaxWait, "debounce-max-wait", 0, "watch, serve: reload a directory that is never quiet at least every `DURATION` (default 4 times --debounce)")
	fs.BoolVar(&a.cfg.poll, "poll", false, "watch, serve: read the directories every second instead of waiting for file events")
	fs.StringVar(&a.cfg.http, "http", "", "serve: streamable HTTP at `ADDR` (host:port, a bare :port bound to 127.0.0.1; or unix:PATH, a socket only this user may open), path /mcp")
	a.cfg.serve.flags(fs)
	a.cfg.install.flags(fs)
	fs.BoolVar(&a.cfg.noWatch, "no-watch", false, "serve: do not reload tools as their files change")
	fs.IntVar(&a.cfg.maxInFlight, "max-in-flight", 0, fmt.Sprintf("serve: handle at most `N` stdio requests at once, reading stdin no further meanwhile (default %d)", mcpserver.DefaultMaxInFlight))
	fs.StringVar(&a.cfg.state, "state", "", "call, run, serve: keep the sessions' state (ctx.state, what the model read, \"always\" answers) at `URL`: redis://HOST:PORT (or rediss://, unix://), shared by every luatool using it (default: this process's memory)")
	fs.StringVar(&a.cfg.resultsDir, "results-dir", "", "write results too large to show inline to `DIR`, and keep them (default: a temporary directory removed on exit)")
	fs.BoolVar(&a.cfg.strict, "strict", false, "list, schema: exit 2 when any tool failed to load or to describe itself")
	fs.BoolVar(&a.cfg.revoke, "revoke", false, "trust: forget the folder instead")
	fs.BoolVar(&a.cfg.listTrusted, "list", false, "trust: list the trusted folders")
	fs.BoolVar(&a.cfg.newPrompt, "prompt", false, "new: scaffold an MCP prompt instead of a tool")
	fs.BoolVar(&a.cfg.newResource, "resource", false, "new: scaffold an MCP resource instead of a tool")
	fs.StringVar(&a.cfg.run, "run", "", "test: run only the cases whose names match the Go regular expression `PATTERN`")
	fs.BoolVar(&a.cfg.noShellSandbox, "no-shell-sandbox", false, "run shell commands without the kernel sandbox (Landlock): the read-only classifier alone then confines them")
	fs.BoolVar(&a.cfg.shellNetwork, "shell-network", false, "let sandboxed shell commands connect and listen over TCP (every host: the shell gets no per-host policy)")
	fs.Func("allow-net", "let tools that declare `HOST` reach it although it is a loopback, private or link-local address (a name, an address or a prefix; repeatable)", func(s string) error {
		a.cfg.allowNet = append(a.cfg.allowNet, s)
		return nil
	})
	fs.Func("deny-net", "let no tool reach `HOST` (a name, *.domain, an address, a prefix, or * for every host; repeatable; beats --allow-net and what tools declare)", func(s string) error {
		a.cfg.denyNet = append(a.cfg.denyNet, s)
		return nil
	})
	fs.Func("shell-env", "pass the environment variable `NAME` to shell commands too (repeatable)", func(s string) error {
		a.cfg.shellEnv = append(a.cfg.shellEnv, s)
		return nil
	})
	fs.Func("env", "give tools the environment variable `NAME`, as a secret (env.get; repeatable)", func(s string) error {
		a.cfg.env = append(a.cfg.env, s)
		return nil
	})
	return fs
}

// parseInterspersed parses flags wherever they stand among the arguments; "--" ends
// flag parsing. On an error, the positional arguments before it are returned too (the
// help of "luatool CMD --help" needs CMD).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return positional, err
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

// usageColumn is the width of the first column of the usage screen and of a
// command's help: commands and flags longer than it would break the alignment (a
// test holds them to it).
const usageColumn = 28

func (a *app) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: luatool [flags] <command> [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-*s %s\n", usageColumn, commands[n].usage, commands[n].help)
	}
	fmt.Fprintln(w, "\nflags:")
	a.printFlags(w, shownFlags(a.flags()))
	fmt.Fprintln(w, "\nexit codes: 0 success, 1 a tool result is an error or a call was denied (test: a case failed), 2 usage or load error")
	fmt.Fprintln(w, "\nluatool help COMMAND tells more about a command.")
}

// printFlags prints the named flags, one a line, in the order given.
func (a *app) printFlags(w io.Writer, names []string) {
	fs := a.flags()
	for _, n := range names {
		name, usage := flag.UnquoteUsage(fs.Lookup(n))
		fmt.Fprintf(w, "  --%-*s %s\n", usageColumn-2, strings.TrimSpace(n+" "+name), usage)
	}
}

func (a *app) errorf(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	if w, ok := a.stderr.(*logWriter); ok {
		// serve's JSON log: the error is one record, its lines kept in it.
		w.log.Error(msg)
		return ExitUsage
	}
	fmt.Fprintf(a.stderr, "luatool: %s\n", strings.ReplaceAll(msg, "\n", "\nluatool: "))
	return ExitUsage
}

// isTerminal reports whether r is a terminal (not merely a character device such as
// /dev/null). A stream that is not an *os.File may say so itself with an IsTerminal
// method, as the tests' stand-ins for a terminal do.
func isTerminal(r any) bool {
	if t, ok := r.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
