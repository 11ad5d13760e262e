package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/luatool/luatool/engine/netpolicy"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/settings"
)

// settingsPaths says where the settings files of a run are, from the environment
// and the command line.
type settingsPaths struct {
	// Home is the user's home directory, the root of user settings rules. Empty means
	// no user settings are read.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME. Empty or relative (which the XDG specification
	// says to ignore) means Home/.config.
	ConfigHome string
	// Project is the project's settings file, as it was read when its trust was
	// decided (see project): not read again, so that what was trusted is what is
	// used. Nil means no project settings: the host leaves it nil for a folder that
	// is not trusted.
	Project *readLayer
	// Explicit is the file named by --settings; empty for none. Unlike the others it
	// must exist.
	Explicit string
}

// projectLayer names the layer of the project settings file, in rule sources.
const projectLayer = "project"

// userConfigDir is the user's configuration directory: configHome
// ($XDG_CONFIG_HOME) when it is absolute (the XDG specification says to ignore a
// relative one), else home/.config; "" when neither tells.
func userConfigDir(home, configHome string) string {
	switch {
	case filepath.IsAbs(configHome):
		return configHome
	case home != "":
		return filepath.Join(home, ".config")
	}
	return ""
}

// userPath returns the user settings file, ConfigHome/luatool/settings.json, or ""
// when Home is empty.
func (p settingsPaths) userPath() string {
	if p.Home == "" {
		return ""
	}
	return filepath.Join(userConfigDir(p.Home, p.ConfigHome), "luatool", "settings.json")
}

// A readLayer is one settings file as it was read: its settings and warnings, or
// why it does not read.
type readLayer struct {
	settings settings.Settings
	warnings []string
	err      error
}

// readSettings reads the user and --settings files and merges them with the
// project's (read already), in the order user, project, --settings. A missing user
// file is no error; a missing --settings file is. The root of a --settings file's
// rules is the directory holding it, as Claude Code does for its --settings file: a
// file that travels with a directory keeps its "/x" patterns meaning the same. The
// warnings are those of every file.
func readSettings(p settingsPaths) (settings.Settings, []string, error) {
	var (
		layers   []settings.Settings
		warnings []string
		errs     []error
	)
	read := func(path string, layer settings.Layer, optional bool) {
		path, err := filepath.Abs(path)
		if err == nil {
			layer.Root, err = filepath.Abs(layer.Root)
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		layer.Home = p.Home
		s, warns, err := settings.ReadFile(path, layer)
		if optional && errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		layers = append(layers, s)
		warnings = append(warnings, warns...)
	}
	if path := p.userPath(); path != "" {
		read(path, settings.Layer{Name: "user", Root: p.Home}, true)
	}
	if p.Project != nil {
		if p.Project.err != nil {
			errs = append(errs, p.Project.err)
		} else {
			layers = append(layers, p.Project.settings)
			warnings = append(warnings, p.Project.warnings...)
		}
	}
	if p.Explicit != "" {
		read(p.Explicit, settings.Layer{Name: "--settings", Root: filepath.Dir(p.Explicit)}, false)
	}
	if len(errs) > 0 {
		return settings.Settings{}, nil, errors.Join(errs...)
	}
	return settings.Merge(layers...), warnings, nil
}

// flagSettings is the layer of the permission flags: --allow, --ask, --deny and
// --mode, rules rooted at cwd (absolute). The error names the flag of every bad value.
func (c *config) flagSettings(cwd string) (settings.Settings, error) {
	var (
		out  rules.Settings
		errs []error
	)
	add := func(flag string, texts []string, list *[]rules.Rule) {
		for _, text := range texts {
			if err := rules.Check(text); err != nil {
				errs = append(errs, fmt.Errorf("--%s %q: %w", flag, text, err))
				continue
			}
			*list = append(*list, rules.Rule{Text: text, Source: "--" + flag, Root: cwd})
		}
	}
	add("allow", c.allow, &out.Allow)
	add("ask", c.ask, &out.Ask)
	add("deny", c.deny, &out.Deny)
	if c.mode != "" {
		if m, err := rules.ParseMode(c.mode); err != nil {
			errs = append(errs, fmt.Errorf("--mode: %w", err))
		} else {
			out.Mode, out.ModeSource = m, "--mode"
		}
	}
	network, err := c.flagNetwork()
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return settings.Settings{}, errors.Join(errs...)
	}
	return settings.Settings{Permissions: out, Network: network}, nil
}

// flagNetwork is the network policy of --allow-net and --deny-net; the error names
// the flag of every bad pattern.
func (c *config) flagNetwork() (settings.Network, error) {
	var (
		out  settings.Network
		errs []error
	)
	add := func(flag string, patterns []string, list *[]settings.Entry) {
		for _, p := range patterns {
			pat, err := netpolicy.ParsePattern(p)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("--%s: %w", flag, err))
			case flag == "allow-net" && pat.IsAny():
				errs = append(errs, errors.New(`--allow-net "*" would let every tool reach loopback, private and cloud metadata addresses; name the hosts or addresses instead`))
			default:
				*list = append(*list, settings.Entry{Pattern: p, Source: "--" + flag})
			}
		}
	}
	add("allow-net", c.allowNet, &out.Allow)
	add("deny-net", c.denyNet, &out.Deny)
	return out, errors.Join(errs...)
}
