package hooks

import (
	"time"

	"github.com/luatool/luatool/engine/srcpos"
)

// Settings are the hook section of settings files: their "hooks" and
// "disableAllHooks", as package engine/settings reads and merges them. An entry
// luatool cannot run was left out then, with a warning.
type Settings struct {
	// Disabled is set when a layer says "disableAllHooks": true: then no hook runs.
	Disabled bool
	// Commands are the command hooks, in the order of the files and within them.
	Commands []CommandSpec
}

// A CommandSpec is one handler of type "command" of a settings file, as written;
// FromSettings makes it a Command.
type CommandSpec struct {
	// Event is the event of the entry it is in.
	Event Event
	// Matcher is the entry's matcher (see CompileMatcher).
	Matcher string
	// Command is run by /bin/sh -c; when empty, Args is run as it is (exec form).
	Command string
	Args    []string
	// Timeout is the "timeout" in seconds; zero means the default.
	Timeout time.Duration
	// Pos is where the handler is written.
	Pos srcpos.Pos
	// Source names the layer ("user", "project", "--settings").
	Source string
}
