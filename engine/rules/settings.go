package rules

import (
	"fmt"
	"strings"

	"github.com/luatool/luatool/internal/spell"
)

// Behavior is the decision of a permission step: of a rule's list, a tool's
// checkPermissions, a hook, a person.
type Behavior string

// The permission behaviours. Passthrough means "no opinion" and becomes Ask unless a
// rule or mode decides.
const (
	Allow       Behavior = "allow"
	Deny        Behavior = "deny"
	Ask         Behavior = "ask"
	Passthrough Behavior = "passthrough"
)

// Mode is a permission mode.
type Mode string

// The permission modes.
const (
	ModeDefault           Mode = "default"
	ModeAcceptEdits       Mode = "acceptEdits"
	ModePlan              Mode = "plan"
	ModeBypassPermissions Mode = "bypassPermissions"
	ModeDontAsk           Mode = "dontAsk"
)

// A Rule is a permission rule as written, with where it came from.
type Rule struct {
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

// Settings are the permission rules and mode an engine runs with, as the host
// gathered them (package engine/settings reads them from settings files).
type Settings struct {
	// Allow, Ask and Deny are the rules of each list, in source order.
	Allow, Ask, Deny []Rule
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

// Modes returns the permission modes, in the order messages list them.
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
