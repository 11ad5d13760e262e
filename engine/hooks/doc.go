// Package hooks is Claude Code's hook protocol, as the engine runs it: code of the
// host's user that runs around each call. Three sources give hooks, and all three
// answer with one Decision:
//
//   - Hook values in the engine's Options.Hooks: Claude Code's command hooks from
//     settings files (FromSettings builds them), or any Go type that implements Hook;
//   - hook files, which loaders turn into a Def beside tools (Lua: a file returning
//     {event = "PreToolUse", matcher = ..., run = function(input, ctx)}; the Lua
//     loader is engine/luaload), run by the engine as a Hook named by the file;
//   - the engine's Options.Middleware, Go functions wrapping the rest of the call in
//     the manner of net/http middleware (Middleware).
//
// The order of a call, after validateInput:
//
//  1. The PreToolUse hooks that match the tool, from Options.Hooks and then the hook
//     files (by file name), all at once, each bounded by its Timeout and by what is
//     left of the call's (Options.Timeout): hooks count inside the call's time, and a
//     call whose time runs out in them ends as timed out. A hook with the same Name
//     as an earlier one of its event runs once (Select). Their decisions are merged
//     (Run, Merge): deny beats ask beats allow.
//  2. The middleware, in Options order, the first outermost: each sees the merged
//     decision so far and may change it before calling next, or answer without
//     calling next (a deny).
//  3. A deny ends the call: the model is told the reason, as an error. An updated
//     input replaces the input and is validated again (schema, then validateInput).
//  4. The permission step (the engine's permissions.go), where a hook's ask is an
//     ask whatever an allow rule says, and a hook's allow stands in for a person's
//     yes: it never beats a deny rule, an ask rule, plan mode or the tool's own deny.
//  5. The call; then the PostToolUse hooks (or PostToolUseFailure for a call that
//     failed) at once as in 1, then the middleware's after-parts, innermost first.
//  6. A PostToolUse block adds its reason for the model (who still sees the output),
//     additional context is added after the result, and an updated output replaces
//     the tool's data before mapResult (see Decision.UpdatedOutput).
//
// A hook that fails or times out gives no decision: the call goes on as if it were
// absent (unless the call's own time is up), and the failure is logged (the
// engine's Options.Logger), with the hook's Name. Hooks of a call whose time is up do
// not run. The texts the model sees of hooks are Claude Code's (DenyText,
// BlockTexts, ContextText).
//
// # Command hooks
//
// Claude Code's command hooks come from the "hooks" of settings files (package
// engine/settings reads them into a Settings): FromSettings turns them into the list
// an engine takes in Options.Hooks. A command hook gets the call as JSON on its stdin
// (Input). Exit code 0: stdout is read as JSON when its first non-blank character is
// "{" (otherwise it is ignored), and its hookSpecificOutput decides (DecodeOutput:
// permissionDecision allow, deny or ask, permissionDecisionReason, updatedInput,
// additionalContext; for PostToolUse the top-level decision "block" with reason, and
// updatedToolOutput). Exit code 2 blocks: a PreToolUse call is denied and a
// PostToolUse result blocked, with "[COMMAND]: " and stderr as the reason (or the
// JSON's reason, when stdout holds one), as the original words it; for
// PostToolUseFailure that reason is added for the model. Any other exit code is a
// failure (the call goes on without the hook) unless stdout holds valid JSON, which
// then decides. Output that is not valid JSON, a JSON field of the
// wrong type and a hook that outlives its timeout are failures too: logged by the
// engine, never blocking. "continue": false, which stops the whole turn in the
// original, denies the call (PreToolUse) or blocks its result, with stopReason:
// luatool answers one call at a time and cannot stop the turn, but the hook said
// not to go on.
//
// # Where a hook runs
//
// A "command" runs with /bin/sh -c, "args" as a program and its arguments, in the
// call's working directory, in its own process group, which is killed when the hook
// ends or times out (default DefaultTimeout; "timeout" in seconds; never past the
// call's deadline). Commands are started by the host's Launcher, which confines them
// as it confines its other commands (the CLI's is builtin/hostmod's ShellOptions, so
// a hook runs as a shell command of the shell module does: the Landlock sandbox
// unless turned off, the network only where allowed, and the same minimal
// environment, with HOME and TMPDIR set to a scratch directory removed afterwards),
// with CLAUDE_PROJECT_DIR, as the original sets it for its hooks. A hook may read and
// execute the roots, the system directories and the directory of the settings file it
// comes from (so a script kept beside the file runs), and write only its scratch
// directory: it decides on a call, it does not make one.
//
// Command hooks are code the user runs: they come only from the user's own
// settings, the files named on the command line and, once the folder is trusted,
// the project's (the host decides which files it reads; the CLI reads project
// settings only in a trusted folder).
package hooks
