// Package rules is Claude Code's permission vocabulary, as the engine's permission
// step uses it: the behaviours (allow, deny, ask, passthrough), the modes, the rules
// and what no call writes without a person's yes.
//
// A rule is written "Tool" (a tool-level rule, which governs every call of the tool)
// or "Tool(content)": Check says what is wrong with one, and Parse turns a host's
// Settings (each Rule with where it came from) into a Set. A content rule matches a
// call's Target: the path its tool's getPath names, as a gitignore-style pattern
// relative to the root of the settings that hold it (Read(./secrets/**)), or the
// parts of the command its ruleContent gives (Bash(git status), Bash(npm run
// test:*), Bash(git *)). Read(...) rules also govern Glob and Grep, Edit(...) rules
// Edit, Write and NotebookEdit (Family). Matching fails closed: a path is judged
// under every name it has through symbolic links, deny and ask rules without regard
// to case, and a call whose path or command cannot be told matches every deny and
// ask rule and no allow rule.
//
// The engine's permission step (engine/permissions.go) asks a Set, in the original's
// order: Denies, Asks, then the Mode (Mode.Allows), then Allows. Protected answers
// why a write would change what luatool, git, shells, editors or package managers
// load as code or configuration: such a write asks a person whatever the mode, the
// rules or the tool say.
package rules
