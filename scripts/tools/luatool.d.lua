---@meta
-- Type definitions for luatool tools, the host modules of package builtin, the
-- engine's tools module, json, and the test and assert modules of tool tests, for
-- the Lua language server (set runtime.version to "Lua 5.1" and add this file to
-- workspace.library in .luarc.json; luatool new does both). The engine never loads
-- this file. tests/typedefs_test.go fails when it and the Go code disagree.

------------------------------------------------------------------------------
-- The tool contract
------------------------------------------------------------------------------

---A tool: what a tool file returns. Members that may be values may also be
---functions computing them; the engine fills in fail-closed defaults for the rest.
---@class luatool.Tool
---@field name string The name the model calls: a letter, then letters, digits, _, - or . (at most 128; Anthropic and OpenAI take no dots and at most 64).
---@field aliases? string[] Other names lookup accepts.
---@field searchHint? string A 3-10 word phrase ToolSearch scores.
---@field shouldDefer? boolean Withhold the schema until the tool is discovered.
---@field alwaysLoad? boolean Never defer.
---@field maxResultSizeChars? number Results longer than this are persisted to a file (default 50000; math.huge: never).
---@field inputSchema table A JSON Schema whose root is type = "object".
---@field outputSchema? table The JSON Schema of the data call returns.
---@field prompt string|fun(opts: {tools: string[]}): string The model-facing description.
---@field description? string|fun(input: table, opts: table): string A one-line summary of a call, for people.
---@field userFacingName? string|fun(input: table): string The label people see (default name).
---@field isEnabled? boolean|fun(): boolean Offer the tool at all (default true).
---@field isReadOnly? boolean|fun(input: table): boolean The call changes nothing (default false).
---@field isConcurrencySafe? boolean|fun(input: table): boolean The call may run beside others (default false).
---@field isDestructive? boolean|fun(input: table): boolean The call may destroy data (default false).
---@field isOpenWorld? boolean|fun(input: table): boolean The call reaches outside the host (default false).
---@field isIdempotent? boolean Calling twice with the same input does no more than calling once; a hint for MCP clients (default false).
---@field interruptBehavior? "cancel"|"block"|fun(): "cancel"|"block"
---@field validateInput? fun(input: table, ctx: luatool.Context): true|luatool.ValidationResult
---@field checkPermissions? fun(input: table, ctx: luatool.Context): luatool.PermissionResult
---@field getPath? fun(input: table): string The path the call touches, for Read(...) and Edit(...) rules.
---@field ruleContent? fun(input: table): string What content rules such as Bash(git status) match.
---@field toAutoClassifierInput? fun(input: table): string
---@field call fun(input: table, ctx: luatool.Context): luatool.ToolResult|string|number|boolean|nil
---@field mapResult? fun(data: any, toolUseId: string): string|table[] The content the model sees.
---@field renderToolUseMessage? fun(input: table): string
---@field renderToolResultMessage? fun(data: any): string
---@field renderToolUseProgressMessage? fun(progress: any): string
---@field renderToolUseRejectedMessage? fun(input: table): string
---@field renderToolUseErrorMessage? fun(message: string): string

---@class luatool.ValidationResult
---@field result boolean
---@field message? string Sent to the model inside <tool_use_error>.
---@field errorCode? integer For telemetry only.

---@class luatool.PermissionResult
---@field behavior "allow"|"deny"|"ask"|"passthrough"
---@field updatedInput? table
---@field message? string

---@class luatool.ToolResult
---@field data any Any JSON value; mapResult turns it into what the model sees.
---@field newMessages? any[] Messages that follow the tool_result.
---@field mcpMeta? table Passed to MCP clients as _meta.
---@field contextModifier? luatool.ContextChange|fun(): luatool.ContextChange Changes for the later calls of the turn (honoured for tools not concurrency-safe for their input).

---What a contextModifier changes; fields left out change nothing.
---@class luatool.ContextChange
---@field cwd? string The new working directory.
---@field mode? "default"|"acceptEdits"|"plan"|"bypassPermissions"|"dontAsk" The new permission mode.
---@field allow? string[] Allow rules for the rest of the turn.
---@field ask? string[] Ask rules for the rest of the turn.
---@field deny? string[] Deny rules for the rest of the turn.
---@field state? table Keys of the session state to set (json.null deletes one).

---The ctx argument of validateInput, checkPermissions and call.
---@class luatool.Context
---@field toolUseId string
---@field cwd string The working directory.
---@field roots string[] The directories tools may touch.
---@field mode string The permission mode.
---@field tools string[] The names of the tools on offer.
---@field deadline? number When the call will be stopped, Unix time in seconds.
---@field state luatool.State The session's shared state.
---@field readFileState luatool.FileStates What the session read and wrote, for read-before-write.
local Context = {}

---Report progress (any JSON value) to the host; never sent to the model.
---@param data any
function Context:progress(data) end

---True once the call is cancelled or past its deadline.
---@return boolean
function Context:aborted() end

---Write a line to the call's log, like print.
---@param ... any
function Context:log(...) end

---@class luatool.State
local State = {}

---@param key string
---@return any
function State:get(key) end

---@param key string
---@param value any A JSON value; nil deletes the key.
function State:set(key, value) end

---An entry of readFileState. Only mtime is required when setting one.
---@class luatool.FileState
---@field hash? string The SHA-256 of the whole content, hex (as fs.read gives it).
---@field content? string The content, when a tool keeps it.
---@field mtime number The modification time when read, Unix seconds (as fs.stat gives it).
---@field offset? integer The first line read, when given.
---@field limit? integer The number of lines read, when given.
---@field partial? boolean Only part of the file was seen.

---The session's readFileState: an LRU cache (100 entries, 25 MB) by absolute path.
---@class luatool.FileStates
local FileStates = {}

---@param path string An absolute path.
---@return luatool.FileState?
function FileStates:get(path) end

---@param path string An absolute path.
---@param entry luatool.FileState
function FileStates:set(path, entry) end

---@param path string An absolute path.
function FileStates:delete(path) end

------------------------------------------------------------------------------
-- Host modules (package builtin). Failures a tool should handle return nil, a
-- message and a code: "outside", "notfound", "isdir", "notdir", "notfile",
-- "toolarge", "denied", "badpattern", "badtype", "cancelled", "io", and for
-- fs.write "readonly", "stale" or "exists".
------------------------------------------------------------------------------

---@alias luatool.ErrorCode "outside"|"notfound"|"isdir"|"notdir"|"notfile"|"toolarge"|"denied"|"badpattern"|"badtype"|"cancelled"|"io"|"readonly"|"stale"|"exists"

---@class luatool.FileInfo
---@field size integer Bytes.
---@field mtime number Modification time, Unix seconds with fraction.
---@field isDir boolean
---@field isFile boolean A regular file.
---@field mode string Like "-rw-r--r--".
---@field hash? string SHA-256 of the whole content, hex: set by fs.read, fs.lines and fs.write.

---@class luatool.WriteInfo: luatool.FileInfo
---@field created boolean The file did not exist before.

---@class luatool.LinesInfo: luatool.FileInfo
---@field totalLines integer Lines in the file.
---@field startLine integer The first line selected (1-based).
---@field numLines integer Lines selected.

---require("fs"): file access confined to the roots. Paths are absolute or relative
---to the first root. Only fs.write changes anything, and only for a tool that is not
---read-only for its input.
---@class luatool.fs
local fs = {}

---The file's exact content.
---@param path string
---@param opts? {maxBytes?: integer}
---@return string? content
---@return luatool.FileInfo|string info_or_err
---@return luatool.ErrorCode? code
function fs.read(path, opts) end

---Replaces or creates a file atomically (temporary file and rename; an existing
---file keeps its mode). The conditions are checked under a per-file lock in the same
---step as the write: ifUnchangedSince (mtime) and ifHash fail with "stale",
---ifAbsent with "exists". mkdirs creates missing parent directories.
---@param path string
---@param content string
---@param opts? {ifUnchangedSince?: number, ifHash?: string, ifAbsent?: boolean, mkdirs?: boolean}
---@return luatool.WriteInfo? info
---@return string? err
---@return luatool.ErrorCode? code
function fs.write(path, content, opts) end

---Selected lines joined by "\n", without terminators.
---@param path string
---@param opts? {offset?: integer, limit?: integer, maxBytes?: integer}
---@return string? text
---@return luatool.LinesInfo|string info_or_err
---@return luatool.ErrorCode? code
function fs.lines(path, opts) end

---@param path string
---@return luatool.FileInfo|nil info
---@return string? err
---@return luatool.ErrorCode? code
function fs.stat(path) end

---@param path string
---@return boolean exists
---@return string? err
function fs.exists(path) end

---The names in a directory, sorted.
---@param dir string
---@return string[]? names
---@return string? err
---@return luatool.ErrorCode? code
function fs.list(dir) end

---path made absolute and clean ("~" expanded), relative to base (default the first root).
---@param path string
---@param base? string
---@return string
function fs.abs(path, base) end

---path relative to base when inside it, otherwise path itself.
---@param path string
---@param base string
---@return string
function fs.rel(path, base) end

---require("glob"): find files by glob pattern.
---@class luatool.glob
local glob = {}

---Files (absolute paths) matching pattern, oldest first, and how many matched.
---@param pattern string
---@param opts? {path?: string, limit?: integer, sort?: "modified"|"path", reverse?: boolean}
---@return string[]? files
---@return integer|string total_or_err
---@return luatool.ErrorCode? code
function glob.find(pattern, opts) end

---Whether find would accept pattern and path, without searching: the pattern
---compiles and names a directory inside the roots.
---@param pattern string
---@param opts? {path?: string}
---@return true|nil ok
---@return string? err
---@return luatool.ErrorCode? code
function glob.check(pattern, opts) end

---@class luatool.GrepOptions
---@field path? string A file or directory.
---@field glob? string Globs split at whitespace and commas; "!glob" excludes.
---@field type? string A ripgrep file type: "go", "py", "js", "ts", "rust", "md", ...
---@field ignoreCase? boolean
---@field multiline? boolean Matches may span lines; "." matches newlines.

---@class luatool.GrepContentOptions: luatool.GrepOptions
---@field before? integer Context lines before each match.
---@field after? integer Context lines after each match.
---@field maxColumns? integer Longer lines are replaced by a marker (default 500; 0: never).

---@class luatool.GrepCount
---@field path string
---@field count integer

---@class luatool.GrepLine
---@field line integer 1-based.
---@field text string
---@field match boolean False for a context line.

---@class luatool.GrepGroup
---@field path string
---@field lines luatool.GrepLine[]

---require("grep"): search file contents with regular expressions.
---@class luatool.grep
local grep = {}

---Files with a match, newest first.
---@param pattern string
---@param opts? luatool.GrepOptions
---@return string[]? paths
---@return string? err
---@return luatool.ErrorCode? code
function grep.files(pattern, opts) end

---Matching lines per file, by path.
---@param pattern string
---@param opts? luatool.GrepOptions
---@return luatool.GrepCount[]? counts
---@return string? err
---@return luatool.ErrorCode? code
function grep.count(pattern, opts) end

---Groups of adjacent printed lines (matches and context), by path then line.
---@param pattern string
---@param opts? luatool.GrepContentOptions
---@return luatool.GrepGroup[]? groups
---@return string? err
---@return luatool.ErrorCode? code
function grep.content(pattern, opts) end

---Compiles the pattern, globs and type without searching; path is not looked at.
---@param pattern string
---@param opts? luatool.GrepContentOptions
---@return true|nil ok
---@return string? err
---@return luatool.ErrorCode? code
function grep.check(pattern, opts) end

---@class luatool.RunResult
---@field output string Stdout and stderr, interleaved as written.
---@field exitCode integer 128 + the signal number when a signal ended it.
---@field interrupted boolean The call was cancelled while it ran.
---@field timedOut boolean The timeout ended it.
---@field truncated boolean Output beyond maxOutput was dropped.
---@field omitted integer Bytes of output dropped.
---@field cwd string The working directory the command ended in.
---@field cwdOutside boolean That directory is outside the roots.

---require("shell"): commands run with bash -c in their own process group, in a
---directory inside the roots. A read-only call may run only commands classified
---read-only.
---@class luatool.shell
local shell = {}

---Runs command and waits for it.
---@param command string
---@param opts? {cwd?: string, timeout?: integer, maxOutput?: integer} timeout in milliseconds (default 120000), maxOutput in bytes (default 1 MiB)
---@return luatool.RunResult? result
---@return string? err
---@return luatool.ErrorCode|"badcommand"? code
function shell.run(command, opts) end

---Starts command in the background; its output goes to a file.
---@param command string
---@param opts? {cwd?: string}
---@return string? id
---@return string path_or_err The output file, or the error.
---@return luatool.ErrorCode? code
function shell.start(command, opts) end

---The simple commands of command (split at ;, &&, ||, | and newlines).
---@param command string
---@return string[]? commands
---@return string? err
---@return "badcommand"? code
function shell.split(command) end

---Whether command is classified read-only (every simple command a known reader).
---@param command string
---@return boolean
function shell.readonly(command) end

---require("path"): pure functions on slash-separated paths; no file is touched.
---@class luatool.path
local path = {}

---The parts joined and cleaned.
---@param ... string
---@return string
function path.join(...) end

---p without ., .. and doubled slashes.
---@param p string
---@return string
function path.clean(p) end

---All but the last element.
---@param p string
---@return string
function path.dirname(p) end

---The last element.
---@param p string
---@return string
function path.basename(p) end

---The extension with its dot, or "".
---@param p string
---@return string
function path.ext(p) end

---Whether p is absolute.
---@param p string
---@return boolean
function path.isabs(p) end

---p relative to base, or nil and why.
---@param base string
---@param p string
---@return string? rel
---@return string? err
function path.rel(base, p) end

---The directory (with its trailing slash) and the file.
---@param p string
---@return string dir
---@return string file
function path.split(p) end

---@class luatool.ToolInfo
---@field name string
---@field searchHint string
---@field deferred boolean
---@field prompt string
---@field inputSchema table

---require("tools"): the engine's tool definitions (for ToolSearch-like tools). It
---cannot call tools.
---@class luatool.tools
local tools = {}

---Every tool of the current snapshot, in name order.
---@return luatool.ToolInfo[]
function tools.list() end

---Marks the named tools (or aliases) discovered, so that their schemas are sent to
---the model from now on; returns the tool names marked.
---@param names string[]
---@return string[]
function tools.discover(names) end

---require("json"): JSON, with the sentinels of the value model.
---@class luatool.json
---@field null userdata Stands for JSON null where nil would drop a key or end an array.
local json = {}

---Marks t as an array, so that an empty one encodes as [] rather than {}.
---@generic T: table
---@param t T
---@return T
function json.array(t) end

---Whether t is marked as an array.
---@param t table
---@return boolean
function json.isarray(t) end

---Encodes a value; raises an error for what JSON cannot hold.
---@param v any
---@return string
function json.encode(v) end

---Decodes text, or returns nil and why.
---@param text string
---@return any value
---@return string? err
function json.decode(text) end

------------------------------------------------------------------------------
-- Tool tests: files named *_test.lua beside the tools, run by luatool test
------------------------------------------------------------------------------

---What t:call returns.
---@class luatool.TestResult
---@field text string The result's text as the model sees it.
---@field isError boolean
---@field stage "lookup"|"abort"|"input"|"validate"|"permission"|"call"|"result"|"done" Where the call ended.
---@field data any What call returned.
---@field asked boolean A permission ask was answered.
---@field log string[] The lines the tool logged.

---The t argument of a test case: a fresh temporary root and engine.
---@class luatool.TestContext
---@field root string The case's root directory (absolute).
local TestContext = {}

---An absolute path inside the root.
---@param rel string
---@return string
function TestContext:path(rel) end

---Creates a file in the root (and its directories).
---@param rel string
---@param content string
function TestContext:write(rel, content) end

---A file's content, or nil when it does not exist.
---@param rel string
---@return string?
function TestContext:read(rel) end

---Calls a tool through the pipeline. answer = "allow" or "deny" answers a permission
---ask (none: the ask is denied); id sets the tool_use id.
---@param name string
---@param input? table
---@param opts? {answer?: "allow"|"deny", id?: string}
---@return luatool.TestResult
function TestContext:call(name, input, opts) end

---require("test"): registers the cases of a test file.
---@class luatool.test
local test = {}

---Registers a case; cases run in order, each in a fresh state.
---@param name string
---@param fn fun(t: luatool.TestContext)
function test.case(name, fn) end

---require("assert"): assertions that name the test's file and line when they fail.
---@class luatool.assert
local assert = {}

---got and want are equal (tables by their contents).
---@param got any
---@param want any
---@param message? string
function assert.eq(got, want, message) end

---s is a string matching the Lua pattern.
---@param s any
---@param pattern string
---@param message? string
function assert.matches(s, pattern, message) end

---fn raises an error (matching pattern, if given); returns the error's message.
---@param fn function
---@param pattern? string
---@return string
function assert.fails(fn, pattern) end
