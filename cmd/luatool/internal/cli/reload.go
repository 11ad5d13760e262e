package cli

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/settings"
)

// At SIGHUP serve reads its settings files again (the user's, the trusted
// project's, --settings) and swaps what they decide into the running engine
// (engine.SetPolicy): the allow, ask and deny rules, the mode and the command
// hooks. Connections stay open, and calls already running finish under what they
// started with. The network policy, env and additionalDirectories are built into
// the host modules and the tools' values when serve starts: a change of them is
// logged as not applied until a restart. A file that does not read changes
// nothing.

// servedSettings is what serve's policy was built from, kept to build it again at
// SIGHUP. Only the SIGHUP goroutine uses it once serving.
type servedSettings struct {
	// root and roots are the project directory and the directories tools work in.
	root  string
	roots []string
	// set is the merge of the files and the flags in force.
	set settings.Settings
	// project is the project's settings file in force, as it was read when its
	// trust was decided, and hash the SHA-256 of what was read; project is nil
	// when the project's settings are not used.
	project *readLayer
	hash    string
}

// policyOf is what the engine takes of set (the host's own paths protected with
// the scripts its hooks run): the permissions, the hooks and the protected paths.
func (a *app) policyOf(root string, roots []string, set settings.Settings) (rules.Settings, []hooks.Hook, []rules.ProtectedPath) {
	hks := hooks.FromSettings(set.Hooks, hooks.Options{Launcher: a.cfg.shellOptions(), Roots: roots})
	return set.Permissions, hks, a.protectedPaths(root, set.Hooks)
}

// reloadSettings reads the settings files again and swaps what they decide into
// eng, logging what changed; a file that does not read keeps everything as it was,
// and the log says where and why.
func (a *app) reloadSettings(eng *engine.Engine, cur *servedSettings) {
	log := a.logger()
	project, hash := a.reloadProject(cur)
	files, warnings, err := readSettings(settingsPaths{Home: home(), ConfigHome: os.Getenv("XDG_CONFIG_HOME"), Project: project, Explicit: a.cfg.settings})
	if err != nil {
		log.Error("settings not reloaded: the ones in force are kept", "error", err)
		return
	}
	for _, w := range warnings {
		log.Warn(w)
	}
	flags, err := a.cfg.flagSettings(cur.root)
	if err != nil { // they were read at the start: only the working directory could change
		log.Error("settings not reloaded: the ones in force are kept", "error", err)
		return
	}
	next := settings.Merge(files, flags)
	// What the host modules and the tools' values were built with stays.
	var fixed []string
	if !reflect.DeepEqual(next.Network, cur.set.Network) {
		fixed = append(fixed, "network")
	}
	if !reflect.DeepEqual(next.Env, cur.set.Env) {
		fixed = append(fixed, "env")
	}
	if !slices.Equal(next.Permissions.AdditionalDirectories, cur.set.Permissions.AdditionalDirectories) {
		fixed = append(fixed, "additionalDirectories")
	}
	next.Network, next.Env, next.Permissions.AdditionalDirectories = cur.set.Network, cur.set.Env, cur.set.Permissions.AdditionalDirectories
	if len(fixed) > 0 {
		log.Warn("settings not applied until a restart: serve builds them in when it starts", "changed", fixed)
	}
	perms, hks, protected := a.policyOf(cur.root, cur.roots, next)
	if err := eng.SetPolicy(perms, hks, protected); err != nil {
		log.Error("settings not reloaded: the ones in force are kept", "error", err)
		return
	}
	logPolicyChanges(log, cur.set, next)
	cur.set, cur.project, cur.hash = next, project, hash
}

// reloadProject is the project's settings file to use from now on, and its hash:
// the file as it is now when the trust list holds it as it is now, else the one in
// force (its trust was decided at the start, and only `luatool trust` decides it
// again), with a line saying why. A project whose settings were not used at the
// start is not used now either: its tools were not loaded.
func (a *app) reloadProject(cur *servedSettings) (*readLayer, string) {
	if cur.project == nil {
		return nil, ""
	}
	p, err := readProject(cur.root)
	if err != nil {
		a.logger().Warn("the project's settings in force are kept", "error", err)
		return cur.project, cur.hash
	}
	if p.hash == cur.hash {
		return cur.project, cur.hash
	}
	list, err := readTrustList(trustListPath())
	if rec, found := list.find(p.key); err == nil && found && rec.Settings == p.hash {
		if p.settings == "" {
			return &readLayer{}, ""
		}
		return &p.read, p.hash
	}
	why := filepath.Join(p.root, projectSettingsFile) + " is not as it was when the folder was trusted"
	if err != nil {
		why = err.Error()
	}
	a.logger().Warn(fmt.Sprintf("keeping the project settings of %s as they were trusted: %s; to use them, run: luatool trust %s and send SIGHUP again",
		p.root, why, shellWord(p.root)))
	return cur.project, cur.hash
}

// logPolicyChanges logs what the reload changed of what decides calls: the rules
// each list gained and lost, the mode and the command hooks.
func logPolicyChanges(log *slog.Logger, before, after settings.Settings) {
	var added, removed []string
	for _, l := range []struct {
		name          string
		before, after []rules.Rule
	}{
		{"allow", before.Permissions.Allow, after.Permissions.Allow},
		{"ask", before.Permissions.Ask, after.Permissions.Ask},
		{"deny", before.Permissions.Deny, after.Permissions.Deny},
	} {
		added = append(added, ruleChanges(l.name, l.after, l.before)...)
		removed = append(removed, ruleChanges(l.name, l.before, l.after)...)
	}
	added = append(added, hookChanges(after.Hooks.Commands, before.Hooks.Commands)...)
	removed = append(removed, hookChanges(before.Hooks.Commands, after.Hooks.Commands)...)
	attrs := []any{"added", added, "removed", removed}
	if modeOf(before) != modeOf(after) {
		attrs = append(attrs, "mode", fmt.Sprintf("%s -> %s", modeOf(before), modeOf(after)))
	}
	if before.Hooks.Disabled != after.Hooks.Disabled {
		attrs = append(attrs, "hooks_disabled", after.Hooks.Disabled)
	}
	log.Info("settings reloaded", attrs...)
}

// ruleChanges names the rules of list in a that b does not have, as
// "list:rule (source)".
func ruleChanges(list string, a, b []rules.Rule) []string {
	var out []string
	for _, r := range a {
		if !slices.ContainsFunc(b, func(o rules.Rule) bool { return o.Text == r.Text && o.Source == r.Source && o.File == r.File }) {
			out = append(out, fmt.Sprintf("%s:%s (%s)", list, r.Text, r.Source))
		}
	}
	return out
}

// hookChanges names the command hooks of a that b does not have, as
// "hook:Event(matcher) command (source)".
func hookChanges(a, b []hooks.CommandSpec) []string {
	same := func(x, y hooks.CommandSpec) bool {
		return x.Event == y.Event && x.Matcher == y.Matcher && x.Command == y.Command && slices.Equal(x.Args, y.Args) && x.Timeout == y.Timeout && x.Source == y.Source
	}
	var out []string
	for _, h := range a {
		if !slices.ContainsFunc(b, func(o hooks.CommandSpec) bool { return same(h, o) }) {
			cmd := h.Command
			if cmd == "" {
				cmd = strings.Join(h.Args, " ")
			}
			out = append(out, fmt.Sprintf("hook:%s(%s) %s (%s)", h.Event, h.Matcher, cmd, h.Source))
		}
	}
	return out
}

// modeOf is the mode set holds, ModeDefault when none.
func modeOf(set settings.Settings) rules.Mode {
	if set.Permissions.Mode == "" {
		return rules.ModeDefault
	}
	return set.Permissions.Mode
}
