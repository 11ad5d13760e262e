package engine

import (
	"fmt"
	"strings"

	"github.com/luatool/luatool/internal/spell"
)

// A SourcedRule is a permission rule as written, with where it came from.
type SourcedRule struct {
	// Text is the rule, such as "Bash(git status)" or "Read(./secrets/**)".
	Text string
	// Source names the layer that holds the rule in messages: "project", "user",
	// "command line", "session" (the engine's name for "allow always" answers).
	Source string
	// File is the settings file that holds the rule; empty for rules not from a file.
	File string
	// Root is the absolute directory that "/x" path patterns of the rule are relative
	// to: the home directory for user settings, the project directory for project
	// settings, the directory holding the file for a file named on the command line,
	// and the working directory for command-line and session rules.
	Root string
}

// PermissionSettings are the permission rules and mode the engine runs with, as the
// host gathered them (package engine/settings reads them from settings files).
type PermissionSettings struct {
	// Allow, Ask and Deny are the rules of each list, in source order.
	Allow, Ask, Deny []SourcedRule
	// Mode is the permission mode; empty when no layer sets one, which the engine
	// takes as ModeDefault.
	Mode Mode
	// ModeSource and ModeFile say where Mode was set (ModeFile is empty when not from
	// a file).
	ModeSource, ModeFile string
	// AdditionalDirectories are directories tools may touch besides the working
	// directory: absolute, cleaned, without duplicates.
	AdditionalDirectories []string
}

// sourceSession names the rules added while running ("allow always" answers).
const sourceSession = "session"

// modes returns the permission modes, in the order messages list them.
func Modes() []Mode {
	return []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeBypassPermissions, ModeDontAsk}
}

// ParseMode returns the mode named s. Names are case-sensitive, as in Claude Code;
// for any other s the error lists the modes, with a hint when s is close to one.
func ParseMode(s string) (Mode, error) {
	var names []string
	for _, m := range Modes() {
		if string(m) == s {
			return m, nil
		}
		names = append(names, string(m))
	}
	msg := fmt.Sprintf("unknown mode %q", s)
	if hint := spell.Suggest(s, names); hint != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", hint)
	}
	return "", fmt.Errorf("%s; the modes are %s", msg, strings.Join(names, ", "))
}

// describeOrigin renders "(source: file)", or "(source)" without a file.
func describeOrigin(source, file string) string {
	if file == "" {
		return "(" + source + ")"
	}
	return "(" + source + ": " + file + ")"
}
