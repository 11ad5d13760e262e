// Package engine runs LLM-agent tools: the Tool contract of Claude Code, its
// fail-closed defaults, JSON Schema validation of every input, the permission step,
// the call under a deadline, and the mapping of results for the model.
//
// # Tools
//
// A tool is a ToolDef: a name, a prompt (the description the model reads), an input
// schema and a Call function, plus optional members. Build merges the defaults into
// a ToolDef and compiles its schema; the result, a *Tool, answers every question of
// the contract, taking the safe answer whenever a member is absent or fails (not
// read-only, not concurrency-safe, ask before running). Members lists the contract,
// member by member: what each may be, and what a tool gets without it or when it
// fails; the table at the top of defaults.go is its rendering.
//
// The engine knows no scripting language. Tool files reach it through Loaders
// (Options.Loaders): a loader turns a file into a ToolDef. Package engine/luaload is
// the loader of Lua files, whose functions run in sandboxed Lua states (package
// bindings). Go hosts add Go-native tools through Options.Tools (or AddTools, later),
// with TypedTool for a function of Go types; they go through the same defaults and
// pipeline. Package luatool, at the module's root, wires the common case in one
// package: the standard tools, tool directories, Go tools, asks, serving and watching.
//
// A loader's file may also define a hook (ToolDef.Hook) or an MCP prompt or resource
// (ToolDef.Feature) instead of a tool: the engine loads, checks and reloads those
// with the tools.
//
// # The engine's seams
//
// What the pipeline asks of its neighbours lives in packages of their own, which
// import neither the engine nor Lua: engine/schema compiles the tools' JSON Schemas
// and prepares each input; engine/rules holds the permission rules, the modes and
// the paths no call writes without a person; engine/hooks is Claude Code's hook
// protocol (and its command hooks); engine/env holds the values a host hands its
// tools and redacts the secrets among them; engine/diag is what is wrong in a loaded
// file. Above the engine, engine/feature serves prompts and resources.
//
// # The engine
//
// New builds an Engine; Load sets the directories of tool files (Sources) it serves,
// AddSources adds to them, and each reads them with the loaders and swaps in a new
// Registry, an immutable snapshot of the tools on offer. A source Load leaves out is
// dropped, with a notice naming it and its tools.
//
// Call runs one tool_use through the pipeline, in the original system's order (the
// steps of docs/architecture.md, numbered so in pipeline.go):
//
//  1. lookup: the tool by name or alias ("No such tool available", with a hint);
//  2. abort check: a context already cancelled ends the call;
//  3. schema: the input decoded, numeric and boolean strings coerced, defaults
//     filled and validated against the schema (package schema); an input it refuses
//     is mended by the tool's coerceInput, when it has one, and validated again
//     (InputValidationError, one line a problem, after the tool's
//     validationErrorSteer sentence when it has one); coerceInput's note, when it
//     gives one, ends the successful text result (step 10);
//  4. validateInput: the tool's own check;
//  5. PreToolUse hooks and middleware: Options.Hooks and hook files, then
//     Options.Middleware around steps 6 to 9 (see "Hooks and middleware");
//  6. permissions: rules from Options.Permissions (package rules), the tool's
//     checkPermissions, the safety check of protected paths (rules.Protected: what
//     programs load as code or configuration asks a person whatever the mode and
//     rules say) and the mode, deny beating ask beating allow, with an ask going to
//     Options.CanUseTool and no callback meaning deny (permissions.go);
//  7. call: under Options.Timeout;
//  8. output check: the data against the tool's outputSchema;
//  9. PostToolUse hooks: or PostToolUseFailure when the call failed;
//  10. mapResult: the content for the model; empty becomes
//     "(NAME completed with no output)";
//  11. persistence: a result over the tool's threshold is written to a file and
//     replaced by a preview.
//
// Every call yields exactly one Result holding one tool_result block, whatever goes
// wrong; a panic in a Go tool's code is that call's error (a PanicError with the Go
// stack), not the host's. Prepare splits a call in two for hosts that weigh a call
// before running it: the PendingCall answers ConcurrencySafe and runs on the same
// version of the tool.
//
// The deadline stops Lua code wherever it is. Go code is cooperative: a Go-native
// tool must watch its context, as any Go function that takes one should.
//
// Run takes all the tool_use blocks of a model turn: consecutive concurrency-safe
// calls run side by side, the others alone, and the results come back in order.
//
// # The network
//
// A tool lists the hosts its call may reach (ToolDef.Network, the network member);
// the call, and no other member, is handed them (CallContext.Network), and the host
// modules that use the network refuse the rest. A tool that lists "*" reaches what
// the model names: the hosts of the "domain:HOST" entries of its ruleContent, for
// which the permission step decides, and which it cannot allow itself, so that each
// host needs a rule (WebFetch(domain:example.com)), a mode or a person. What the
// host refuses for every tool (its deny list, private addresses) is the host
// modules' business (package netpolicy).
//
// # The call's client
//
// A call may ask of its client (package client): log messages, a sampling of its
// model, input from its user. Options.Client is the host's own (a Go host's model
// and user); Callbacks.Client the client of one call, as the MCP server routes each
// call's asks to the client that made it. Tools reach it through
// CallContext.Client while their call runs (Lua: ctx:log, ctx:sample, ctx:elicit);
// CallContext.Summarize is one use of it, as WebFetch asks about the page it
// fetched.
//
// # Principals and sessions
//
// Every call runs for a Principal, set on its context with WithPrincipal (the local
// user when none is): the authenticated caller of a server, and the client's session
// where it keeps one. What belongs to a conversation is kept per principal and
// session, never shared: the tools' state (ctx.state; Engine.State), what the model
// was shown of each file (readFileState; Engine.Files), the rules "allow always"
// answers added, and the deferred tools discovered. It lives in Options.Sessions, a
// session.Store: in memory by default, shared by several processes with a store such
// as session/redisstore. A principal's Profile (NewProfile) adds rules and a mode to
// the engine's, and hides the tools its rules deny by name.
//
// # Values for tools, and secrets
//
// Options.Env holds the values a host hands its tools explicitly (package env: an
// env.Var is a name, a value, the tools that may read it, whether it is secret); Lua
// tools read them with env.get, never the process's environment. The env.Redactor
// of the set replaces its secrets with [redacted:NAME] in everything the engine
// hands on: results (content, data, newMessages, mcpMeta), logs, progress, errors,
// renderings, prompts and the messages of permission asks, and the records it
// writes to Options.Logger; a host redacts its own output with the same Redactor
// (env.Set.Redactor).
//
// # Hooks and middleware
//
// Code of the host's user runs around each call in Claude Code's hook protocol
// (package hooks), and answers with one hooks.Decision whatever its source:
// Options.Hooks (hooks.FromSettings builds Claude Code's command hooks from
// settings files), hook files (a loader's ToolDef with Hook set; Lua: a file
// returning {event = "PreToolUse", ...}) and Options.Middleware, in the manner of
// net/http middleware. Package hooks gives the order: PreToolUse hooks after
// validateInput, then the middleware, then the permission step, where a hook's ask
// asks and its allow never beats a deny or ask rule, then the call and the
// PostToolUse or PostToolUseFailure hooks. Failing hooks give no decision and are
// logged. Hooks are not Callbacks: those are the host's own, per call (progress and
// asks), set with WithCallbacks.
//
// # Reloading
//
// Load is incremental: a source read again keeps the last good version of a file
// that no longer loads. Watch keeps the tools current as their files change, and
// Subscribe reports each change (added, updated, removed, failed; and the same for
// hook files and features, and a change of what a feature serves that a call
// reports, CallContext.FeatureChanged).
//
// # Prompts and resources
//
// A file of a tool directory may define an MCP prompt or resource instead of a tool
// (with the Lua loader: a table with kind = "prompt" or kind = "resource"): a
// Feature, which package engine/feature defines and serves (feature.GetPrompt,
// feature.ReadResource). Features load, are checked and reload with the tools,
// within the keys of their kind (a prompt's name, a resource's URI or URI
// template): two files of a directory declaring one are both left out, and a later
// directory overrides an earlier one; Registry.Features lists them. Their code only
// computes: host functions that read or touch the world refuse, since no permission
// check guards what a client asks of them, and they see no principal's session
// (FeatureContext).
//
// # Model APIs and MCP
//
// Definitions returns what a model is told about each tool (name, title, prompt,
// schemas, hints, deferral). Package engine/apischema writes them in the tool formats
// of the Anthropic and OpenAI APIs and of MCP; package engine/mcpserver serves an
// engine to MCP clients. A host serving several clients routes each call's progress
// and permission asks to its client with WithCallbacks.
//
// # Embedding
//
// The examples in example_test.go are the embedding guide, each runnable:
//
//   - Example: load a directory of Lua tools and call one;
//   - Example_batch: run the tool_use blocks of a model turn with Run;
//   - Example_permissions: rules, and asks answered by a CanUseTool callback;
//   - Example_goTool: a Go-native tool beside the Lua ones;
//   - Example_hostModule: Go functions and values offered to Lua (Module.Values);
//   - Example_customModule: a host module of Lua functions (Module.Funcs);
//   - Example_watch: reloading on save, and the events of each change;
//   - Example_serveMCP: serving the tools to MCP clients;
//   - Example_promptsAndResources: prompt and resource files, rendered and read.
//
// Capabilities are opt-in: a Lua tool reaches nothing the host did not hand its
// loader (luaload.Options.Modules), besides json and the loader's tools module. Tool
// authors test their tools with package engine/luatest (luatool test). Package
// engine/settings reads the settings files that give the permission rules, the
// hooks and the values for tools.
//
// An Engine is safe for concurrent use. Each call runs on the snapshot current when
// it started; a Load in the meantime does not disturb it.
package engine
