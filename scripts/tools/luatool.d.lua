---@meta
-- Type definitions for luatool tools, the host modules of package hostmod, the
-- pure modules of package puremod, the loader's tools and env modules, json, and the test
-- and assert modules of tool tests, for the Lua language server (set
-- runtime.version to "Lua 5.1", runtime.path to "lib/?.lua" and add this file to
-- workspace.library in .luarc.json; luatool new does all three). The engine never
-- loads this file. tests/typedefs_test.go fails when it and the Go code disagree: in
-- the members and functions of each table, in the keys each options table accepts,
-- and in the fields of what the functions return.
--
-- Phases. A tool file's main chunk runs when the file loads (luatool check and list
-- load it too): it may build values and require modules, but the functions of fs,
-- glob, grep, shell, http, tools and env refuse ("fs.read is not available while the tool
-- file loads: call it from call()"). Members other than call run read-only: they may
-- read inside the roots, never write or run a command that is not read-only, and
-- never reach the network. call may change things when the tool is not read-only for
-- its input and the call was allowed, and reach the hosts its network member names.
--
-- Shared code. require("name") loads lib/name.lua beside the tool files
-- (require("a.b"): lib/a/b.lua) after the host modules and json: a Lua module,
-- run once per state like a tool file (in the load phase when a main chunk requires
-- it). A change to any file in lib/ reloads the tools of the directory.

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
---@field network? string[] The hosts call may reach with the http module: "api.github.com", "*.example.com" (its subdomains), an address or a prefix ("10.0.0.0/8"); or { "*" } for a tool that fetches what the model asks, which must then have ruleContent return "domain:HOST" for the host a call reaches, each host needing a permission of its own (default: none).
---@field prompt string|fun(opts: {tools: string[]}): string The model-facing description.
---@field description? string|fun(input: table, opts: table): string A one-line summary of a call, for people.
---@field userFacingName? string|fun(input: table): string The label people see (default name).
---@field isEnabled? boolean|fun(): boolean Offer the tool at all (default true).
---@field isReadOnly? boolean|fun(input: table, ctx?: luatool.Context): boolean The call changes nothing (default false); ctx, when asked about a call, is its context.
---@field isConcurrencySafe? boolean|fun(input: table, ctx?: luatool.Context): boolean The call may run beside others (default false); ctx as for isReadOnly.
---@field isDestructive? boolean|fun(input: table): boolean The call may destroy data (default false).
---@field isOpenWorld? boolean|fun(input: table): boolean The call reaches outside the host (default false).
---@field isIdempotent? boolean Calling twice with the same input does no more than calling once; a hint for MCP clients (default false).
---@field interruptBehavior? "cancel"|"block"|fun(): "cancel"|"block"
---@field coerceInput? fun(input: table): table?, string? Mends a sloppy input the schema refuses (an old parameter name, a value the tool can infer), called only then, with the input as sent; what it returns is validated instead, and nil leaves the input as given. The string after the table is a note a successful text result ends with, after a blank line (what was mended).
---@field validationErrorSteer? fun(input: table): string Said before the schema's problems with the input, to steer a model that sent another tool's parameters; "" for nothing.
---@field validateInput? fun(input: table, ctx: luatool.Context): boolean|luatool.ValidationResult, string? true (valid), a ValidationResult, or false and the message for the model.
---@field checkPermissions? fun(input: table, ctx: luatool.Context): luatool.PermissionResult
---@field getPath? fun(input: table): string The path the call touches, for Read(...) and Edit(...) rules.
---@field ruleContent? fun(input: table): string|string[] What content rules such as Bash(git status) match; a list for the parts of a compound command.
---@field toAutoClassifierInput? fun(input: table): string
---@field call fun(input: table, ctx: luatool.Context): luatool.ToolResult|string|number|boolean|nil, string? A ToolResult, or a string, number, boolean or nil standing for {data = value}; nil or false followed by a string is a failure with that message (an is_error result); error(...) is one too, with the position.
---@field mapResult? fun(data: any, toolUseId: string): string|luatool.ContentBlock[] The content the model sees.
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
---@field decisionReason? luatool.DecisionReason With behavior "ask" only: the call would write something protected.

---Why a checkPermissions asks, in the original's shape. The one luatool takes is the
---safety check: the call would write something protected (ctx:protected), so the ask
---goes to a person whatever the mode, the allow rules or a hook say, and is denied in
---dontAsk mode or with no one to ask. Any other shape denies the call.
---@class luatool.DecisionReason
---@field type "safetyCheck"
---@field reason string Why, for the person asked: what is protected and what runs from it.
---@field classifierApprovable? boolean Ignored: luatool has no classifier.

---A content block of mapResult's list or of a prompt message, in MCP's shape (2025-11-25).
---MCP clients get each kind as it is; the model reads text and PNG, JPEG, GIF and WebP
---images as they are, and the other kinds as Claude Code renders them: a resource as
---"[Resource at URI] TEXT", a link as "[Resource link: NAME] URI (DESCRIPTION)", audio and
---other binary data as "[Audio] Binary content (audio/wav, 44 bytes) is not shown to the
---model". A bad block (an unknown type, a missing field, data that is not base64, a MIME
---type that is not type/subtype or not of the block's kind) fails mapResult or get with
---the block number and the field; luatool check reports what it sees in literal tables.
---
---```lua
---{ type = "text", text = "Done." }
---{ type = "image", data = PNG_BASE64, mimeType = "image/png" }
---{ type = "image", source = { type = "base64", media_type = "image/png", data = PNG_BASE64 } } -- the Anthropic shape
---{ type = "audio", data = WAV_BASE64, mimeType = "audio/wav" }
---{ type = "resource", resource = { uri = "file:///notes.md", mimeType = "text/markdown", text = "# Notes" } }
---{ type = "resource", resource = { uri = "file:///logo.png", mimeType = "image/png", blob = PNG_BASE64 } }
---{ type = "resource_link", uri = "file:///big.csv", name = "big.csv", mimeType = "text/csv", size = 1048576,
---  annotations = { audience = { "user" }, priority = 0.5 } }
---```
---@alias luatool.ContentBlock luatool.TextBlock|luatool.ImageBlock|luatool.AudioBlock|luatool.ResourceBlock|luatool.ResourceLinkBlock

---@class luatool.TextBlock
---@field type "text"
---@field text string
---@field annotations? luatool.Annotations

---An image: base64 data of an image/* type, in MCP's shape or the Anthropic API's (source).
---@class luatool.ImageBlock
---@field type "image"
---@field data? string The image, base64.
---@field mimeType? string An image/* type ("image/png").
---@field source? {type: "base64", media_type: string, data: string} Instead of data and mimeType.
---@field annotations? luatool.Annotations

---@class luatool.AudioBlock
---@field type "audio"
---@field data string The audio, base64.
---@field mimeType string An audio/* type ("audio/wav").
---@field annotations? luatool.Annotations

---An embedded resource: the contents of a resource, given in the result.
---@class luatool.ResourceBlock
---@field type "resource"
---@field resource luatool.EmbeddedResource
---@field annotations? luatool.Annotations

---@class luatool.EmbeddedResource
---@field uri string
---@field mimeType? string
---@field text? string The contents of a text resource; or
---@field blob? string the contents of a binary one, base64 (one of the two).

---A link to a resource the client may read; the model reads its name, URI and description.
---@class luatool.ResourceLinkBlock
---@field type "resource_link"
---@field uri string
---@field name string
---@field title? string A name for people.
---@field description? string
---@field mimeType? string
---@field size? integer Its size in bytes.
---@field annotations? luatool.Annotations

---What a client may make of a block (MCP annotations); the model does not see them.
---@class luatool.Annotations
---@field audience? ("user"|"assistant")[] For whom the block is.
---@field priority? number From 0 (entirely optional) to 1 (effectively required).
---@field lastModified? string An ISO 8601 time ("2025-01-12T15:00:58Z").

---@class luatool.ToolResult
---@field data? any Any JSON value; mapResult turns it into what the model sees.
---@field newMessages? any[] Messages that follow the tool_result.
---@field mcpMeta? table Passed to MCP clients as _meta.
---@field contextModifier? luatool.ContextChange|fun(): luatool.ContextChange Changes for the later calls of the turn (honoured for tools not concurrency-safe for their input).

---A prompt file returns this (kind = "prompt"): an MCP prompt, which clients offer
---people as a command (Claude Code: a slash command). get only computes: host
---functions that read or touch the world refuse there, as while the file loads.
---@class luatool.Prompt
---@field kind "prompt"
---@field name string The prompt's name, unique among the directory's prompts.
---@field description? string What the prompt is for.
---@field arguments? luatool.PromptArgument[] The arguments clients ask for, in order.
---@field get fun(args: table<string, string>, ctx: luatool.Context): string|luatool.PromptMessage[]|nil, string? The messages (a string: one user message); nil followed by a string is a failure with that message.

---@class luatool.PromptArgument
---@field name string
---@field description? string
---@field required? boolean A get without it is refused before get runs (default false).
---@field complete? luatool.Completion How to complete the argument's value as a person types it (MCP's completion/complete).

---How to complete a value (MCP's completion/complete): a list of strings, of which those
---starting with what was typed (without regard to case) are offered, or a function of
---what was typed (value) and the other arguments given (args, MCP's context.arguments)
---returning the values to offer, as they are. At most 100 are sent, with the total. A
---function that fails (an error, or nil and a message) or returns something other than
---a list of strings offers nothing, and the server's log says why. It only computes,
---as get does.
---@alias luatool.Completion string[]|fun(value: string, args: table<string, string>, ctx: luatool.Context): string[]|nil, string?

---@class luatool.PromptMessage
---@field role "user"|"assistant"
---@field content string|luatool.ContentBlock A string is a text block; any kind of block a tool result takes.

---A resource file returns this (kind = "resource"): an MCP resource, content a
---client reads by URI (Claude Code: an @-mention). read only computes, as get does.
---@class luatool.Resource
---@field kind "resource"
---@field uri? string The resource's absolute URI ("docs://readme"); or
---@field uriTemplate? string an RFC 6570 template of the URIs it serves ("notes://{topic}").
---@field name string A name for people.
---@field description? string What the resource holds.
---@field mimeType? string The type of its content, unless a read says otherwise.
---@field complete? table<string, luatool.Completion> For a uriTemplate: how to complete each of its variables, by name.
---@field read fun(uri: string, ctx: luatool.Context, params: table<string, string>): string|{text: string, mimeType?: string}|{blob: string, mimeType?: string}|nil, string? The content: text, or a base64 blob; params are the template's variables. nil followed by a string is a failure with that message.

---@alias luatool.Mode "default"|"acceptEdits"|"plan"|"bypassPermissions"|"dontAsk"

---What a contextModifier changes; fields left out change nothing.
---@class luatool.ContextChange
---@field cwd? string The new working directory.
---@field mode? luatool.Mode The new permission mode.
---@field allow? string[] Allow rules for the rest of the turn.
---@field ask? string[] Ask rules for the rest of the turn.
---@field deny? string[] Deny rules for the rest of the turn.
---@field state? table Keys of the session state to set (json.null deletes one).

---The ctx argument of validateInput, checkPermissions and call.
---@class luatool.Context
---@field toolUseId string
---@field cwd string The working directory.
---@field roots string[] The directories tools may touch.
---@field mode luatool.Mode The permission mode.
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

---The eight levels of a log message (RFC 5424, as MCP names them), least severe first.
---@alias luatool.LogLevel "debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"

---Sends a message to the client's log (MCP notifications/message, sent when the
---client asked for messages of its level or less severe ones: logging/setLevel) and
---writes "[level] message data" to the call's log (which the server logs). The
---message's data is message, or {message = message, data = data} when data is
---given. Any member may log. Called with a first argument that is not a level,
---ctx:log is print: its arguments joined by tabs, at info.
---@overload fun(self: luatool.Context, ...: any)
---@param level luatool.LogLevel
---@param message string
---@param data? any A JSON value.
function Context:log(level, message, data) end

---Why ctx:sample, ctx:elicit or ctx:summarize gave no answer: the client (or host)
---does not offer it; its user declined; the request failed; the client's answer
---breaks MCP's shape (or, for a form, its schema).
---@alias luatool.AskFailure "unavailable"|"declined"|"failed"|"malformed"

---One content block of a sampling message: text, or base64 image or audio data.
---@class luatool.SamplingContent
---@field type "text"|"image"|"audio"
---@field text? string
---@field data? string Base64.
---@field mimeType? string

---@class luatool.SamplingMessage
---@field role "user"|"assistant"
---@field content luatool.SamplingContent

---A request to the client's model: MCP's sampling/createMessage.
---@class luatool.SamplingRequest
---@field messages luatool.SamplingMessage[]
---@field systemPrompt? string
---@field maxTokens? integer Default 1024.
---@field temperature? number
---@field stopSequences? string[]
---@field modelPreferences? {hints?: {name: string}[], costPriority?: number, speedPriority?: number, intelligencePriority?: number} Priorities between 0 and 1.
---@field includeContext? "none"|"thisServer"|"allServers"
---@field metadata? table

---The model's message.
---@class luatool.SamplingResult
---@field role "user"|"assistant"
---@field content luatool.SamplingContent
---@field model string The model that wrote it.
---@field stopReason? string "endTurn", "stopSequence", "maxTokens" or the client's own.
---@field text? string content.text, when the content is text.

---Asks the client's model (MCP sampling; luatool call/run have no model), in call
---only: the model's message, or nil, why and its kind. Over a live session the
---call waits for the answer without holding its Lua slot; a client of protocol
---2026-07-28 or later is asked in rounds: the call stops at the question and runs
---again from the start once the client answers, so ask before changing anything. A
---request MCP does not allow raises an error.
---@param request luatool.SamplingRequest|string A string is one user message.
---@return luatool.SamplingResult? result
---@return string? err
---@return luatool.AskFailure? kind
function Context:sample(request) end

---One property of a form: a string (minLength, maxLength, format), a number or
---integer (minimum, maximum), a boolean, a single choice (a string with enum and
---optionally enumNames, or oneOf {const, title}) or a multiple choice (an array
---whose items have enum, or anyOf {const, title}; minItems, maxItems), each with a
---title, a description and a default. Nothing nested.
---@class luatool.FormProperty
---@field type "string"|"number"|"integer"|"boolean"|"array"
---@field title? string
---@field description? string
---@field default? any
---@field enum? string[]
---@field enumNames? string[]
---@field oneOf? {const: string, title: string}[]
---@field items? {type?: "string", enum?: string[], anyOf?: {const: string, title: string}[]}
---@field minLength? integer
---@field maxLength? integer
---@field format? "email"|"uri"|"date"|"date-time"
---@field minimum? number
---@field maximum? number
---@field minItems? integer
---@field maxItems? integer

---A form's schema: a flat object (MCP's restricted requestedSchema). An empty
---required may be left out or written {}: it is not sent.
---@class luatool.FormSchema
---@field type? "object"
---@field properties table<string, luatool.FormProperty>
---@field required? string[]

---A page to send the user to (URL mode).
---@class luatool.ElicitURL
---@field url string An absolute http(s) URL.
---@field message string
---@field elicitationId? string Made up when left out.

---The user's answer.
---@class luatool.ElicitResult
---@field action "accept"|"decline"|"cancel"
---@field content? table For an accepted form: the values, checked against the schema, with the defaults of what the user left out.

---Asks the client's user (MCP elicitation), in call only: a form of schema, or a
---page (ctx:elicit{url=, message=}). luatool call and run ask on the terminal, and
---decline when stdin is not one. Returns the answer, or nil, why and its kind: an
---answer that breaks the schema is "malformed", never trusted. Over a live
---session the call waits for the answer without holding its Lua slot; a client of
---protocol 2026-07-28 or later is asked in rounds: the call stops at the question
---and runs again from the start once the client answers, so ask before changing
---anything. A schema MCP does not allow (a nested object, say) raises an error
---naming the property.
---@overload fun(self: luatool.Context, page: luatool.ElicitURL): luatool.ElicitResult?, string?, luatool.AskFailure?
---@param message string
---@param schema luatool.FormSchema
---@return luatool.ElicitResult? answer
---@return string? err
---@return luatool.AskFailure? kind
function Context:elicit(message, schema) end

---Asks the model of the call's client (a sampling request of content and prompt)
---to answer prompt about content, as WebFetch does with a page, in call only: its
---answer, or nil, why and its kind ("unavailable": there is no model).
---@param content string
---@param prompt string
---@return string? answer
---@return string? err
---@return luatool.AskFailure? code
function Context:summarize(content, prompt) end

---Tells the MCP clients subscribed to the resource at uri (resources/subscribe) that its
---content changed: they are sent notifications/resources/updated. A tool that writes
---what a resource serves calls it once it has written. Only call may; uri must be one a
---resource serves (a template's URIs included), else it raises an error. A resource's
---file being saved notifies its subscribers without it.
---@param uri string
function Context:resourceUpdated(uri) end

---Why writing the absolute path would change something luatool protects (a tool
---directory, a settings file, .git, a shell's or an editor's configuration: what a
---program loads as code), or nil. The path is resolved as the kernel would open it,
---through links and "..", and compared without regard to case. A tool that writes
---a path its getPath does not name checks it here, and asks with decisionReason
---{type = "safetyCheck", reason = why}, as Bash does for a command's targets.
---@param path string
---@return string? why
function Context:protected(path) end

---ctx:protected for a write anywhere inside the directory dir (a recursive remove,
---chmod or copy): why dir, or something protected inside it, would change, or nil. A
---directory of more than 20000 entries counts as protected.
---@param dir string
---@return string? why
function Context:protectedWithin(dir) end

---The session's state: JSON values by key, shared by the calls of a session.
---@class luatool.State
local State = {}

---The value under key, or nil (also when the host keeps no state).
---@param key string
---@return any
function State:get(key) end

---Stores a JSON value under key; nil or json.null deletes the key. Raises an error
---when the host keeps no state.
---@param key string
---@param value any
function State:set(key, value) end

---Changes the value under key atomically and returns the value stored: fn gets the
---current value (nil when there is none) and returns the new one (nil deletes the
---key). When another call, in this process or another sharing the store, changed
---the value in between, fn runs again on the newer value, so it must be pure: no
---ctx.state:set, no files, no output, nothing but its result. After 50 lost races it
---raises an error ("the value kept changing under other writers"), and an error
---raised by fn is raised as it is, with nothing stored. A get then a set can lose
---another call's write; update cannot.
---@param key string
---@param fn fun(old: any): any
---@return any
function State:update(key, fn) end

---An entry of readFileState: what the model was shown of a file.
---@class luatool.FileState
---@field hash string The SHA-256 of the whole raw content when it was read or written, hex (as fs.read gives it).
---@field mtime number The modification time then, Unix seconds (as fs.stat gives it).
---@field offset? integer The first line shown, when given.
---@field limit? integer The number of lines shown, when given.
---@field partial boolean Only part of the file was shown.

---The session's readFileState, by absolute path: read-only for tools. fs.read and
---fs.lines with record = true make its entries (once the call has succeeded), and
---fs.write updates them; no tool can write one, so none can pretend the model read a
---file.
---@class luatool.FileStates
local FileStates = {}

---@param path string An absolute path.
---@return luatool.FileState?
function FileStates:get(path) end

------------------------------------------------------------------------------
-- Host modules (package builtin). Wrong arguments raise an error in the standard
-- wording (bad argument #1 to 'fs.read' (string expected, got nil)); an options
-- table with an unknown key too. Failures a tool should handle return nil, a
-- message and a code: "outside", "notfound", "isdir", "notdir", "notfile",
-- "toolarge", "denied", "badpattern", "badtype", "unsupported" (grep), "cancelled", "io", "readonly"
-- (fs.write, or a shell command not classified read-only, in a read-only call),
-- "stale" and "exists" (fs.write), "badcommand" and "limit" (shell), "undeclared", "blocked",
-- "private", "badurl", "timeout", "network" and "redirects" (http).
------------------------------------------------------------------------------

---@alias luatool.ErrorCode "outside"|"notfound"|"isdir"|"notdir"|"notfile"|"toolarge"|"denied"|"badpattern"|"badtype"|"unsupported"|"cancelled"|"io"|"readonly"|"stale"|"exists"|"notread"|"hidden"|"badcommand"|"limit"|"undeclared"|"blocked"|"private"|"badurl"|"timeout"|"network"|"redirects"|"badtime"|"badencoding"

---How a file stores its text: "utf8" (no byte order mark, or any bytes that are not
---one of the others), "utf8bom" (EF BB BF), "utf16le" (FF FE), "utf16be" (FE FF).
---Lua always sees UTF-8 without a mark, except that fs.read and fs.lines return a
---UTF-16BE file's bytes as they are, with encoding "utf8" and notText "utf16be", as
---the original's tools read it; fs.write writes all four.
---@alias luatool.Encoding "utf8"|"utf8bom"|"utf16le"|"utf16be"

---What fs.stat returns.
---@class luatool.FileInfo
---@field size integer Bytes.
---@field mtime number Modification time, Unix seconds with fraction.
---@field isDir boolean
---@field isFile boolean A regular file.
---@field mode string Like "-rw-r--r--".

---What fs.read returns besides the text.
---@class luatool.ReadInfo: luatool.FileInfo
---@field hash string SHA-256 of the whole content as stored (before decoding), hex: what fs.write's ifHash compares.
---@field encoding luatool.Encoding How the file stores its text.
---@field notText? "utf16be"|"nul"|"not_utf8" Set when the file is not text the standard tools may write: UTF-16 big-endian (FE FF), a NUL byte in its first 8000 bytes as stored (binary data, or UTF-16/UTF-32 without a byte order mark), or bytes that are not UTF-8; absent for UTF-8 and for UTF-16LE with its mark.

---What fs.lines returns besides the text.
---@class luatool.LinesInfo: luatool.ReadInfo
---@field totalLines integer Lines in the file.
---@field startLine integer The first line selected (1-based).
---@field numLines integer Lines selected.
---@field endsWithNewline boolean The file's last line ends with a line terminator (totalLines does not count the empty string after it).

---What fs.write returns.
---@class luatool.WriteInfo: luatool.FileInfo
---@field hash string SHA-256 of the bytes written, hex.
---@field encoding luatool.Encoding The encoding written.
---@field created boolean The file did not exist before.

---@class luatool.ReadOptions
---@field maxBytes? integer Fail with "toolarge" when the text returned would be longer than this many bytes (a whole file is refused by its size before it is read); default and ceiling: the sandbox's string limit.
---@field record? boolean The text is shown to the model: record it in readFileState (with the hash, and the lines shown) once the call has succeeded, in call only. Write and Edit need it.

---@class luatool.LinesOptions: luatool.ReadOptions
---@field offset? integer The first line, 1-based (0 counts as 1).
---@field limit? integer The number of lines, at least 1 (default all).

---@class luatool.WriteOptions
---@field ifUnchangedSince? number Fail with "stale" when the file was modified after this mtime (as fs.stat gives it) or no longer exists.
---@field ifHash? string Fail with "stale" when the content as stored has another SHA-256 (as fs.read gives it) or the file no longer exists.
---@field ifAbsent? boolean Fail with "exists" when the file exists.
---@field ifRead? boolean|"part" The file must be what the model was shown (readFileState): fail with "notread" when it was not shown in full (with "part": not shown at all), with "stale" when its content changed since or it was deleted; checked under a lock every luatool process takes, and again just before the new content replaces the old.
---@field mkdirs? boolean Create missing parent directories.
---@field encoding? luatool.Encoding How to store the text, with the byte order mark it calls for (default "utf8"): writing back the encoding fs.read reported keeps the file's.

---require("fs"): file access confined to the roots. Paths are absolute or relative
---to the first root. Only fs.write changes anything, and only for a tool that is not
---read-only for its input.
---@class luatool.fs
local fs = {}

---The file's text, decoded to UTF-8 from the encoding its byte order mark names
---(see luatool.Encoding).
---@param path string
---@param opts? luatool.ReadOptions
---@return string? content
---@return luatool.ReadInfo|string info_or_err
---@return luatool.ErrorCode? code
function fs.read(path, opts) end

---Replaces or creates a file atomically (temporary file and rename; an existing
---file keeps its mode; a symbolic link is written through). The conditions are
---checked under a per-file lock in the same step as the write. Fails with
---"readonly" when the calling tool is read-only for its input.
---@param path string
---@param content string UTF-8 text.
---@param opts? luatool.WriteOptions
---@return luatool.WriteInfo? info
---@return string? err
---@return luatool.ErrorCode? code
function fs.write(path, content, opts) end

---Selected lines of the decoded text joined by "\n", without terminators ("\r\n"
---counts as one).
---@param path string
---@param opts? luatool.LinesOptions
---@return string? text
---@return luatool.LinesInfo|string info_or_err
---@return luatool.ErrorCode? code
function fs.lines(path, opts) end

---Following symbolic links that stay inside the roots.
---@param path string
---@return luatool.FileInfo? info
---@return string? err
---@return luatool.ErrorCode? code
function fs.stat(path) end

---What fs.lstat returns: the info of the path itself.
---@class luatool.LinkInfo: luatool.FileInfo
---@field isLink boolean The path is a symbolic link (its last element; the others are followed).
---@field target? string For a link, where it points: absolute and clean, a relative target taken from the link's directory, whether or not anything is there.

---Not following a symbolic link that path names.
---@param path string
---@return luatool.LinkInfo? info
---@return string? err
---@return luatool.ErrorCode? code
function fs.lstat(path) end

---@param path string
---@return boolean exists
---@return string? err Why not.
function fs.exists(path) end

---The names in a directory, sorted, without the temporary files of atomic writes.
---@param dir string
---@return string[]? names
---@return string? err
---@return luatool.ErrorCode? code
function fs.list(dir) end

---path made absolute and clean ("~" expanded), relative to base (default the first
---root); a path in path.quote's quoted form is read as the name it stands for. It
---does not check the roots.
---@param path string
---@param base? string
---@return string
function fs.abs(path, base) end

---path relative to base when inside it ("." for base itself), otherwise path
---itself. Both must be absolute (an error is raised otherwise).
---@param path string
---@param base string
---@return string
function fs.rel(path, base) end

---@class luatool.GlobCheckOptions
---@field path? string The directory searched (default the first root).

---@class luatool.GlobOptions: luatool.GlobCheckOptions
---@field limit? integer At most this many files (default 0: no limit).
---@field sort? "modified"|"path" By modification time, oldest first (the default), or by path.
---@field reverse? boolean Reverse the order.

---require("glob"): find files by glob pattern.
---@class luatool.glob
local glob = {}

---Files (absolute paths) matching pattern, oldest first, and how many matched
---before limit cut the list.
---@param pattern string
---@param opts? luatool.GlobOptions
---@return string[]? files
---@return integer|string total_or_err
---@return luatool.ErrorCode? code
function glob.find(pattern, opts) end

---Whether find would accept pattern and path, without searching: the pattern
---compiles and names a directory inside the roots.
---@param pattern string
---@param opts? luatool.GlobCheckOptions
---@return true? ok
---@return string? err
---@return luatool.ErrorCode? code
function glob.check(pattern, opts) end

---@class luatool.GrepOptions
---@field path? string A file or directory (default the first root).
---@field glob? string Globs split at whitespace and commas; "!glob" excludes.
---@field type? string A ripgrep file type: "go", "py", "js", "ts", "rust", "md", ...
---@field ignoreCase? boolean
---@field multiline? boolean Matches may span lines; "." matches newlines.

---@class luatool.GrepContentOptions: luatool.GrepOptions
---@field before? integer Context lines before each match.
---@field after? integer Context lines after each match.
---@field maxColumns? integer Longer lines are replaced by a marker (default 500; 0: never).
---@field onlyMatching? boolean A matching line gives the matched parts alone, one a line (rg -o).

---@class luatool.GrepCount
---@field path string
---@field count integer

---@class luatool.GrepLine
---@field line? integer 1-based; absent from a note.
---@field text string
---@field match? boolean False for a context line.
---@field note? boolean The binary-data line ripgrep's users see after a file's lines:
---"binary file matches (found "\0" byte around offset N)".

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

---The number of matching lines (with multiline, of matches) of each file with a
---match, by path.
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
---@return true? ok
---@return string? err
---@return luatool.ErrorCode? code
function grep.check(pattern, opts) end

---@class luatool.RunResult
---@field output string Stdout and stderr, interleaved as written.
---@field exitCode integer 128 + the signal number when a signal ended it.
---@field interrupted boolean The call was cancelled while it ran.
---@field timedOut boolean The timeout ended it, or (with taskId) passed and it went on in the background.
---@field taskId? string With background: the id of the background command it became at its timeout; only output and timedOut are then set besides.
---@field outputFile? string With taskId: the file its output goes to, beginning with what it printed so far.
---@field truncated boolean Output beyond maxOutput was dropped.
---@field omitted integer Bytes of output dropped.
---@field cwd string The working directory the command ended in.
---@field cwdOutside boolean That directory is outside the roots.

---@class luatool.StartOptions
---@field cwd? string The working directory, inside the roots (default the first root).
---@field timeout? integer Milliseconds the background command may run, 1 to 7200000 (default 600000).

---A running background command of the call's session.
---@class luatool.BackgroundTask
---@field id string Its id: "b" and eight of [0-9a-z].
---@field command string The command as started.
---@field outputFile string The file its output goes to.

---@class luatool.ReadOnlyOptions
---@field cwd? string The directory relative paths of the command start from (default the first root).

---A path a command may write (shell.writes).
---@class luatool.WriteTarget
---@field path string Absolute, as the shell would open it: not cleaned, so a ".." after a link goes where the kernel takes it.
---@field tree? boolean The command may write anywhere inside this directory (a recursive rm, chmod, cp or mv).

---@class luatool.RunOptions
---@field cwd? string The working directory, inside the roots (default the first root).
---@field timeout? integer Milliseconds, more than 0 (default 120000).
---@field maxOutput? integer Bytes of output kept (default 1 MiB).
---@field background? boolean At its timeout, keep the command running as a background command of the session (10 minutes at most) instead of killing it; only in call().

---require("shell"): commands run with bash -c in their own process group, in a
---directory inside the roots. A read-only call may run only commands classified
---read-only; others fail with "readonly".
---@class luatool.shell
local shell = {}

---Runs command and waits for it.
---@param command string
---@param opts? luatool.RunOptions
---@return luatool.RunResult? result
---@return string? err
---@return luatool.ErrorCode? code
function shell.run(command, opts) end

---Starts command in the background, beyond the call, in the same sandbox and
---environment as shell.run; its stdout and stderr go to a file of its own, which
---ends with "[exited with code N]" or "[killed]" once the command has ended, and
---which fs.read, fs.lines, fs.stat and fs.exists open for the call's session only.
---It is stopped at its timeout, when the engine closes, and with luatool. Only call()
---may start one; "limit" when too many are running (10 in a session, 40 in all, by
---default).
---@param command string
---@param opts? luatool.StartOptions
---@return string? id
---@return string path_or_err The output file, or the error.
---@return luatool.ErrorCode? code
function shell.start(command, opts) end

---The background command id, when it is running in the call's session; nil once it
---has ended (by itself, by its timeout or by shell.stop) and for another session's.
---@param id string
---@return luatool.BackgroundTask? task
function shell.task(id) end

---Stops the background command id of the call's session: SIGTERM to its process
---group, SIGKILL two seconds later; returns once it has ended. "notfound" when no
---command of that id is running in the session. Only a call that may change
---things may stop one.
---@param id string
---@return luatool.BackgroundTask? task
---@return string? err
---@return luatool.ErrorCode? code
function shell.stop(id) end

---The simple commands of command, in source order, as written: split at ;, &, &&,
---||, | and newlines, with those inside blocks and substitutions ($(...), `...`).
---@param command string
---@return string[]? commands
---@return string? err
---@return luatool.ErrorCode? code "badcommand".
function shell.split(command) end

---Whether command only reads, and only inside the roots: every simple command a
---known reader, and every path it reads (operands, input redirections, cd targets;
---relative to cwd, default the first root) inside the roots. Otherwise false, why and
---a code: "hidden" (it reads a path a Read deny rule hides: deny the call),
---"outside" (it reads outside the roots), "unlisted" (it reads a directory in which a
---Read deny rule may hide something, and no kernel sandbox keeps it out), "writes" (it
---may change something).
---@param command string
---@param opts? luatool.ReadOnlyOptions
---@return boolean ok
---@return string? why
---@return "hidden"|"outside"|"unlisted"|"writes"|nil code
function shell.readonly(command, opts) end

---What command may write, told before it runs: the targets of its output
---redirections and the operands of the commands known to write files (cp, mv, ln,
---install, rsync, rm, mkdir, touch, tee, chmod, sed, dd, ..., and the destination of
---each source copied into a directory), in every directory a cd before them may have
---led to (relative to cwd, default the first root), a glob standing for every name it
---matches (dot files too); git config and git submodule write the repository's
---configuration; sh -c and eval strings are looked into. unknown lists what cannot be
---told before the command runs (an expansion, the operands xargs reads, an archive's
---or a patch's files), as written. What a program writes by itself (a script, an
---interpreter) is not seen: only the sandbox bounds it.
---@param command string
---@param opts? luatool.ReadOnlyOptions
---@return luatool.WriteTarget[]? targets
---@return string[]|string unknown_or_err
---@return luatool.ErrorCode? code "badcommand".
function shell.writes(command, opts) end

---The options every http function takes.
---@class luatool.HTTPOptions
---@field headers? table<string, string> Request headers by name (User-Agent defaults to luatool's).
---@field timeout? integer Milliseconds the whole request may take (the call's deadline applies anyway); past it, code "timeout".
---@field maxBytes? integer The cap on the response body (default 10 MiB, at most the string limit, 16 MiB); over it, code "toolarge".
---@field redirects? integer How many redirects to follow, each checked like the first request (default 10, 0 to 20; 0 returns the 3xx response itself).

---@class luatool.HTTPPostOptions: luatool.HTTPOptions
---@field body? string The request body.
---@field json? any A value sent as JSON (Content-Type application/json unless headers say otherwise); not with body.

---@class luatool.HTTPRequest: luatool.HTTPPostOptions
---@field url string An http or https URL.
---@field method? string GET, or POST when there is a body; a read-only call may only GET, HEAD or OPTIONS (else code "readonly").

---@class luatool.HTTPResponse
---@field status integer The HTTP status code (any: a 404 is a response, not a failure).
---@field statusText string "OK", "Not Found", ...
---@field headers table<string, string> By name in lower case; repeated headers joined with ", ".
---@field body string
---@field url string The URL of the final response, after redirects.
---@field location? string A redirect's Location made absolute, when the response is a redirect that was not followed (redirects = 0, or a 3xx the request stopped at).
---@field json? any The body decoded, when the content type is JSON and it parses.

---@class luatool.MarkdownOptions
---@field baseUrl? string Links and images are made absolute against it.

---require("http"): requests from call() to the hosts the tool's network member names
---(or, for network = { "*" }, the hosts the call's permission covers). The host's
---policy may deny more, and refuses loopback, private, link-local and cloud metadata
---addresses unless it names them, checked on the address dialled. Failures return
---nil, a message and a code: "undeclared", "blocked", "private", "badurl",
---"readonly", "toolarge", "timeout", "cancelled", "network", "redirects".
---@class luatool.http
local http = {}

---@param opts luatool.HTTPRequest
---@return luatool.HTTPResponse?
---@return string? err
---@return luatool.ErrorCode? code
function http.request(opts) end

---@param url string
---@param opts? luatool.HTTPOptions
---@return luatool.HTTPResponse?
---@return string? err
---@return luatool.ErrorCode? code
function http.get(url, opts) end

---A POST with a string body, or with the options of a table.
---@param url string
---@param opts string|luatool.HTTPPostOptions
---@return luatool.HTTPResponse?
---@return string? err
---@return luatool.ErrorCode? code
function http.post(url, opts) end

---HTML as Markdown (CommonMark with tables; head, script and style dropped).
---@param html string
---@param opts? luatool.MarkdownOptions
---@return string? markdown
---@return string? err
---@return luatool.ErrorCode? code
function http.markdown(html, opts) end

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

---p as a tool shows it in a list, one a line: p itself, or, when p holds a
---character that is not printable (a newline, a tab, an escape) or bytes that are
---not UTF-8, a Go double-quoted string with escapes ("a\nb.txt", "caf\xe9.txt").
---A name that would read as such a string is quoted too. path.unquote reads it back.
---@param p string
---@return string
function path.quote(p) end

---The path s stands for: the name it quotes when s starts and ends with a double
---quote, holds a backslash and is a valid Go string literal; otherwise s itself.
---fs.abs reads a path the same way.
---@param s string
---@return string
function path.unquote(s) end

------------------------------------------------------------------------------
-- Pure modules (package puremod): they compute and reach nothing on the host, so
-- they work in every phase, a tool file's main chunk included (time.sleep alone
-- refuses there). Failures a tool should handle return nil, a message and a code:
-- "badpattern" (re), "badtime" (time), "badencoding" (base64, hex), "badurl" (url).
-- Positions are 1-based byte offsets. No function takes or makes a string over the
-- sandbox's string limit (16 MiB by default): past it they raise.
------------------------------------------------------------------------------

---require("re"): regular expressions in Go's RE2 syntax. Unlike Lua patterns,
---which backtrack (luatool stops them after 200 million steps), RE2 matches in time
---linear in the subject, whatever the pattern; a long match stops at the call's
---deadline. Every function taking a pattern returns nil, the message and
---"badpattern" for one that does not compile, is over 16 KiB or compiles to over
---32,768 instructions. Compiled patterns are cached (the 256 last used), so
---re.find(s, "...") in a loop compiles once.
---
---The captures are what string.match returns: one value per group (nil for a group
---that took no part), or the whole match when the pattern has no group. A pattern
---that names a group ((?P<name>...) or (?<name>...)) gives one table of the named
---groups by name instead.
---@class luatool.re
local re = {}

---Where the pattern first matches from init (default 1; negative counts from the
---end): start and end (inclusive), then the captures when the pattern has groups;
---nil when it does not match. The text before init still counts for ^, \A and \b.
---@param s string
---@param pattern string
---@param init? integer
---@return integer|nil start
---@return integer|string|nil end_or_err
---@return luatool.ErrorCode|string|table|nil ...
function re.find(s, pattern, init) end

---The captures of the first match from init (default 1), or nil.
---@param s string
---@param pattern string
---@param init? integer
---@return string|table|nil ...
---@return string? err
---@return luatool.ErrorCode? code
function re.match(s, pattern, init) end

---An iterator over the captures of each match, for a generic for. Matches follow
---one another as in Go's FindAll: an empty match right after a match is skipped.
---@param s string
---@param pattern string
---@return function? iterator
---@return string? err
---@return luatool.ErrorCode? code
function re.gmatch(s, pattern) end

---s with (the first n) matches replaced, and the number of matches. repl is a
---template ($1 or ${1} a group, $0 the whole match, $name or ${name} a named
---group, $$ a dollar sign; a reference to a group the pattern lacks raises, and
---${1}x is group 1 then x), a table indexed by group 1 (the whole match without
---groups), or a function called with the captures; nil or false keeps the match.
---@param s string
---@param pattern string
---@param repl string|table|fun(...):any
---@param n? integer
---@return string? result
---@return integer|string|nil count_or_err
---@return luatool.ErrorCode? code
function re.gsub(s, pattern, repl, n) end

---The pieces of s between the matches, at most n (the last holds the rest). An
---empty match at the very start or end splits nothing off: re.split("abc", "") is
---{"a", "b", "c"}, re.split("", ",") is {""}.
---@param s string
---@param pattern string
---@param n? integer
---@return string[]? pieces
---@return string? err
---@return luatool.ErrorCode? code
function re.split(s, pattern, n) end

---s with every RE2 metacharacter escaped: a pattern matching s literally.
---@param s string
---@return string
function re.escape(s) end

---The compiled pattern, whose methods are the functions above without the
---pattern; call them with a colon.
---@param pattern string
---@return luatool.Regexp? rx
---@return string? err
---@return luatool.ErrorCode? code
function re.compile(pattern) end

---What re.compile returns.
---@class luatool.Regexp
---@field pattern string The pattern's source.
local Regexp = {}

---As re.find.
---@param s string
---@param init? integer
---@return integer? start
---@return integer? end_
---@return string|table|nil ...
function Regexp:find(s, init) end

---As re.match.
---@param s string
---@param init? integer
---@return string|table|nil ...
function Regexp:match(s, init) end

---As re.gmatch.
---@param s string
---@return function iterator
function Regexp:gmatch(s) end

---As re.gsub.
---@param s string
---@param repl string|table|fun(...):any
---@param n? integer
---@return string result
---@return integer count
function Regexp:gsub(s, repl, n) end

---As re.split.
---@param s string
---@param n? integer
---@return string[]
function Regexp:split(s, n) end

---require("time"): the clock, sleeping, dates and durations. Times are numbers of
---milliseconds since the Unix epoch. A layout is a Go layout (the reference time
---"Mon Jan 2 15:04:05 MST 2006") or the name of one of Go's: "RFC3339",
---"RFC3339Nano", "RFC1123", "RFC1123Z", "RFC822", "RFC822Z", "RFC850", "ANSIC",
---"UnixDate", "RubyDate", "Kitchen", "Stamp", "StampMilli", "StampMicro",
---"StampNano", "DateTime", "DateOnly", "TimeOnly". A zone is "UTC" (the default),
---an offset such as "+05:30", or an IANA name such as "Europe/Paris"; the host's
---local zone is not offered.
---@class luatool.time
local time = {}

---Milliseconds since the epoch, a whole number.
---@return integer
function time.now() end

---Milliseconds, with a fraction, since an arbitrary start: for timing.
---@return number
function time.monotonic() end

---Waits ms milliseconds (a fraction allowed) without using a CPU. At the call's
---deadline or cancellation it raises, and the call ends there. Not in a tool
---file's main chunk.
---@param ms number
function time.sleep(ms) end

---The time as text in layout (default RFC 3339 with milliseconds when there are
---some, "2024-05-01T12:00:00.25Z") and zone; nil, why and "badtime" for an unknown
---zone.
---@param ms number
---@param layout? string
---@param zone? string
---@return string? text
---@return string? err
---@return luatool.ErrorCode? code
function time.format(ms, layout, zone) end

---The time s stands for, read with layout (default RFC 3339, fractional seconds
---accepted) in zone when s names none; nil, why and "badtime" when it does not
---parse.
---@param s string
---@param layout? string
---@param zone? string
---@return number? ms
---@return string? err
---@return luatool.ErrorCode? code
function time.parse(s, layout, zone) end

---A Go duration ("1h30m", "250ms", "1.5s"; units ns, us, ms, s, m, h) in ms; nil,
---why and "badtime" when it does not parse.
---@param s string
---@return number? ms
---@return string? err
---@return luatool.ErrorCode? code
function time.duration(s) end

---ms as Go writes a duration: "1h30m0s", "1.5ms".
---@param ms number
---@return string
function time.formatduration(ms) end

---@class luatool.Base64EncodeOptions
---@field url? boolean The URL alphabet (- and _ for + and /).
---@field pad? boolean End with = padding (default true).

---@class luatool.Base64DecodeOptions
---@field url? boolean The URL alphabet.

---require("base64")
---@class luatool.base64
local base64 = {}

---s in base64.
---@param s string
---@param opts? luatool.Base64EncodeOptions
---@return string
function base64.encode(s, opts) end

---The bytes s encodes; padding is optional and line breaks are skipped. nil, why
---and "badencoding" when s is not base64 of the alphabet.
---@param s string
---@param opts? luatool.Base64DecodeOptions
---@return string? bytes
---@return string? err
---@return luatool.ErrorCode? code
function base64.decode(s, opts) end

---require("hex")
---@class luatool.hex
local hex = {}

---s in lowercase hexadecimal.
---@param s string
---@return string
function hex.encode(s) end

---The bytes s encodes (either case); nil, why and "badencoding" otherwise.
---@param s string
---@return string? bytes
---@return string? err
---@return luatool.ErrorCode? code
function hex.decode(s) end

---What url.parse returns: every part, "" when the URL has none.
---@class luatool.URL
---@field scheme string
---@field username string
---@field password string
---@field host string The host name or address, without brackets or port.
---@field port? integer Absent when the URL names none.
---@field path string Decoded.
---@field rawpath string The path as escaped in the URL.
---@field query string The query string, without "?" (url.decodequery reads it).
---@field fragment string Decoded, without "#".
---@field opaque string What follows "scheme:" in a URL such as mailto:x@y.

---What url.build takes: the parts of a URL, each optional.
---@class luatool.URLParts
---@field scheme? string
---@field username? string
---@field password? string
---@field host? string
---@field port? integer
---@field path? string
---@field rawpath? string The escaped path, kept as given (it must decode to path).
---@field query? string|table A query string, or a table encoded as url.encodequery does.
---@field fragment? string
---@field opaque? string

---@class luatool.EscapeOptions
---@field path? boolean Escape for one path segment (space as %20, / escaped) rather than a query (space as +).

---require("url")
---@class luatool.url
local url = {}

---The parts of a URL, or nil, why and "badurl".
---@param s string
---@return luatool.URL? parts
---@return string? err
---@return luatool.ErrorCode? code
function url.parse(s) end

---The URL of its parts (url.build(url.parse(s)) is s).
---@param opts luatool.URLParts
---@return string
function url.build(opts) end

---ref resolved against base, as a link in a page at base (RFC 3986); nil, why and
---"badurl" when either does not parse.
---@param base string
---@param ref string
---@return string? resolved
---@return string? err
---@return luatool.ErrorCode? code
function url.resolve(base, ref) end

---s escaped for a query value (or, with path, a path segment).
---@param s string
---@param opts? luatool.EscapeOptions
---@return string
function url.escape(s, opts) end

---The text s escapes; nil, why and "badurl" for a bad escape.
---@param s string
---@param opts? luatool.EscapeOptions
---@return string? text
---@return string? err
---@return luatool.ErrorCode? code
function url.unescape(s, opts) end

---A query string of names sorted, each value a string, number or boolean, or a
---list of them (the name repeated): "a=1&b=x+y".
---@param query table<string, string|number|boolean|(string|number|boolean)[]>
---@return string
function url.encodequery(query) end

---Each name's first value, and each name's values as a list; nil, why and "badurl"
---when s does not parse. A leading "?" is skipped.
---@param s string
---@return table<string, string>|nil first
---@return table<string, string[]>|string all_or_err
---@return luatool.ErrorCode? code
function url.decodequery(s) end

---@class luatool.DigestOptions
---@field raw? boolean The digest's bytes rather than lowercase hex.

---require("crypto"): digests and HMAC.
---@class luatool.crypto
local crypto = {}

---SHA-256 of s.
---@param s string
---@param opts? luatool.DigestOptions
---@return string
function crypto.sha256(s, opts) end

---SHA-512 of s.
---@param s string
---@param opts? luatool.DigestOptions
---@return string
function crypto.sha512(s, opts) end

---SHA-1 of s (not for security).
---@param s string
---@param opts? luatool.DigestOptions
---@return string
function crypto.sha1(s, opts) end

---MD5 of s (not for security).
---@param s string
---@param opts? luatool.DigestOptions
---@return string
function crypto.md5(s, opts) end

---The HMAC of message with key; hash is "sha256", "sha512", "sha1" or "md5".
---@param hash string
---@param key string
---@param message string
---@param opts? luatool.DigestOptions
---@return string
function crypto.hmac(hash, key, message, opts) end

---Whether a and b are equal, in time independent of where they differ: compare a
---signature with it.
---@param a string
---@param b string
---@return boolean
function crypto.equal(a, b) end

---require("uuid")
---@class luatool.uuid
local uuid = {}

---A random (version 4) UUID, lowercase.
---@return string
function uuid.v4() end

---A time-ordered (version 7, RFC 9562) UUID: those a process makes sort in the
---order they were made.
---@return string
function uuid.v7() end

---@class luatool.ToolInfo
---@field name string
---@field searchHint string "" when the tool has none.
---@field deferred boolean
---@field prompt string
---@field inputSchema table

---require("tools"): the engine's tool definitions (for ToolSearch-like tools). It
---cannot call tools.
---@class luatool.tools
local tools = {}

---Every tool of the current snapshot, in name order. Raises an error when a
---tool's prompt fails.
---@return luatool.ToolInfo[]
function tools.list() end

---Marks the named tools (or aliases) discovered, so that their schemas are sent to
---the model from now on; returns the tool names marked, in the order given, without
---repeats. Names of no tool are ignored.
---@param names string[]
---@return string[]
function tools.discover(names) end

---require("env"): the values the host hands this tool explicitly (settings "env",
---luatool --env NAME), never the process's environment. A value may be given to some
---tools only, by name; a secret may be read by call only (elsewhere env.get of it
---raises an error), and the engine shows it as [redacted:NAME] in results, logs,
---renderings and errors.
---@class luatool.env
local env = {}

---The value of name for this tool, or nil when the host gives it none (a value for
---other tools only is nil too).
---@param name string
---@return string?
function env.get(name) end

---The names this tool may read, sorted (secrets included).
---@return string[]
function env.names() end

---require("json"): JSON, with the sentinels of the value model.
---@class luatool.json
---@field null userdata Stands for JSON null where nil would drop a key or end an array.
local json = {}

---Marks t (default a new table) as an array, so that an empty one encodes as []
---rather than {}; returns it. Raises an error for a table with another metatable.
---@generic T: table
---@param t? T
---@return T
function json.array(t) end

---Whether v is a table marked as an array.
---@param v any
---@return boolean
function json.isarray(v) end

---@class luatool.JSONEncodeOptions
---@field indent? integer Put each element of an object or array on a line of its own, indented by this many spaces a level (0 to 8; default 0: compact).

---Encodes a value, objects with sorted keys; raises an error for what JSON cannot
---hold (functions, NaN, cycles, mixed or sparse tables) and for a text over the
---string limit.
---@param v any
---@param opts? luatool.JSONEncodeOptions
---@return string
function json.encode(v, opts) end

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
---@field content luatool.ContentBlock[] The result's blocks in MCP's shape, as a client gets them (an image given as source comes back as data and mimeType).
---@field isError boolean
---@field stage "lookup"|"abort"|"input"|"validate"|"permission"|"call"|"result"|"done" Where the call ended.
---@field data? any What call returned (nil when it did not run).
---@field asked boolean An ask was made: the pipeline asked for permission for the call (opts.answer answered it; without one it was denied).
---@field protected? string The text of the ask when it was a safety check: the call writes something protected, which only a person may allow.
---@field log string[] The lines the tool logged.
---@field messages? {level: luatool.LogLevel, data: any}[] What the tool sent the client's log (ctx:log), in order; absent when it sent nothing.

---The t argument of a test case: a fresh temporary root and engine. A rel path that
---is absolute or leaves the root raises an error.
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

---@class luatool.TestCallOptions
---@field answer? "allow"|"deny" The answer when an ask is made (none: the ask is denied).
---@field id? string The tool_use id (default "toolu_test_N").
---@field client? luatool.TestClient The client's answers (none: the client offers neither sampling nor elicitation).

---The client of a t:call: functions that answer the tool's asks, each given the
---request as MCP sends it and returning the answer as a client would (checked as
---every answer is: a malformed one reaches the tool as nil, "malformed: ..."), or
---nil, "declined" or nil, "failed". One left out is a feature the client lacks.
---@class luatool.TestClient
---@field sample? fun(request: luatool.SamplingRequest): luatool.SamplingResult?, string?
---@field elicit? fun(request: {mode: "form"|"url", message: string, requestedSchema?: luatool.FormSchema, url?: string, elicitationId?: string}): luatool.ElicitResult?, string?

---Calls a tool through the pipeline. Data that breaks the tool's outputSchema
---fails the case here.
---@param name string
---@param input? table
---@param opts? luatool.TestCallOptions
---@return luatool.TestResult
function TestContext:call(name, input, opts) end

---Stubs a module for the tools' calls in the rest of the case: a call of
---module.f runs fns.f instead, with the arguments and results as JSON values (an
---error it raises is the real function's error; error(msg, 0) leaves out the test's
---position). The stub replaces the module whole: a function fns leaves out fails
---when a tool calls it. Any module the tools may require but json; a later t:stub of
---the module replaces this one. The test file's own use of the module stays real.
---@param module string
---@param fns table<string, function>
function TestContext:stub(module, fns) end

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
---@param message? string
---@return string
function assert.fails(fn, pattern, message) end
