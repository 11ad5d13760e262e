package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// An mcpClient is an MCP client whose own configuration file luatool install
// edits: where the file is for each scope, where in it the servers are, and the
// shape of a stdio entry.
type mcpClient struct {
	// scopes are the client's scopes, the default first: the one whose entry
	// applies to this project only, since the entry serves one project's root.
	// None when the client has one file.
	scopes []string
	// place is the file of scope and the path of keys to the entry named name.
	place func(p installPlaces, scope, name string) (file string, keys []string)
	// typed is whether the entry says "type": "stdio" (the clients whose
	// documentation asks for it).
	typed bool
	// next is what to do once the file is written.
	next func(name, scope string) string
}

// mcpClients are the clients luatool install knows, by the name given on the
// command line.
var mcpClients = map[string]mcpClient{
	"claude-code": {
		scopes: []string{"local", "user", "project"},
		place: func(p installPlaces, scope, name string) (string, []string) {
			switch scope {
			case "project":
				return filepath.Join(p.root, ".mcp.json"), []string{"mcpServers", name}
			case "user":
				return p.claudeJSON(), []string{"mcpServers", name}
			}
			// local: the project's entry in the user's file, under the path Claude
			// Code knows the project by.
			return p.claudeJSON(), []string{"projects", p.claudeProject(), "mcpServers", name}
		},
		typed: true,
		next: func(name, scope string) string {
			s := fmt.Sprintf("check it: claude mcp get %s (claude mcp list starts it)", name)
			if scope == "project" {
				s += "; Claude Code asks to approve a project's .mcp.json servers at its next start"
			}
			return s
		},
	},
	"claude-desktop": {
		place: func(p installPlaces, _, name string) (string, []string) {
			return filepath.Join(p.appConfigDir(), "Claude", "claude_desktop_config.json"), []string{"mcpServers", name}
		},
		next: func(string, string) string {
			return "quit Claude Desktop completely and start it again: it reads the file at start"
		},
	},
	"cursor": {
		scopes: []string{"project", "user"},
		place: func(p installPlaces, scope, name string) (string, []string) {
			if scope == "user" {
				return filepath.Join(p.home, ".cursor", "mcp.json"), []string{"mcpServers", name}
			}
			return filepath.Join(p.root, ".cursor", "mcp.json"), []string{"mcpServers", name}
		},
		next: func(string, string) string {
			return "Cursor reads the file again itself: see Cursor Settings, MCP"
		},
	},
	"vscode": {
		scopes: []string{"project", "user"},
		place: func(p installPlaces, scope, name string) (string, []string) {
			if scope == "user" {
				return filepath.Join(p.appConfigDir(), "Code", "User", "mcp.json"), []string{"servers", name}
			}
			return filepath.Join(p.root, ".vscode", "mcp.json"), []string{"servers", name}
		},
		typed: true,
		next: func(string, string) string {
			return "VS Code asks you to trust the server when it first starts it (MCP: List Servers)"
		},
	},
}

// clientNames are the names of mcpClients, sorted.
func clientNames() []string {
	var names []string
	for n := range mcpClients {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// installPlaces are where the clients' files are: the user's directories and the
// project's root.
type installPlaces struct {
	goos, home, root string
	// getenv reads the variables that move the files: CLAUDE_CONFIG_DIR,
	// XDG_CONFIG_HOME, APPDATA.
	getenv func(string) string
}

// claudeJSON is Claude Code's own file: .claude.json in $CLAUDE_CONFIG_DIR, else in
// the home directory.
func (p installPlaces) claudeJSON() string {
	if dir := p.getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, ".claude.json")
	}
	return filepath.Join(p.home, ".claude.json")
}

// claudeProject is the path Claude Code keys a project's settings by when started
// in the root: the top of the git work tree holding it (a directory with .git),
// else the root, with links resolved as the working directory of a process is.
func (p installPlaces) claudeProject() string {
	root := resolvedPath(p.root)
	for dir := root; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return root
		}
	}
}

// appConfigDir is where desktop applications keep their configuration:
// ~/Library/Application Support on macOS, %APPDATA% on Windows, $XDG_CONFIG_HOME
// (default ~/.config) elsewhere.
func (p installPlaces) appConfigDir() string {
	switch p.goos {
	case "darwin":
		return filepath.Join(p.home, "Library", "Application Support")
	case "windows":
		if dir := p.getenv("APPDATA"); dir != "" {
			return dir
		}
		return filepath.Join(p.home, "AppData", "Roaming")
	}
	if dir := p.getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(p.home, ".config")
}

// thisMachine are the places of this machine, for the project at root.
func thisMachine(root string) installPlaces {
	return installPlaces{goos: runtime.GOOS, home: home(), root: root, getenv: os.Getenv}
}

// stdioEntry is a client's entry for a server it starts: its fields in the order
// the clients' own files show them.
type stdioEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// entry is the JSON of the entry that starts command with args.
func (c mcpClient) entry(command string, args []string) json.RawMessage {
	e := stdioEntry{Command: command, Args: args}
	if c.typed {
		e.Type = "stdio"
	}
	b, _ := json.Marshal(e) // strings only: cannot fail
	return b
}

// scope is the scope named by --scope, checked, or the client's default.
func (c mcpClient) scope(client, given string) (string, error) {
	switch {
	case len(c.scopes) == 0 && given != "":
		return "", fmt.Errorf("install %s: the client has one configuration file, so --scope means nothing for it", client)
	case len(c.scopes) == 0:
		return "", nil
	case given == "":
		return c.scopes[0], nil
	case !slices.Contains(c.scopes, given):
		return "", fmt.Errorf("install %s: --scope %s is not one of its scopes: %s", client, given, strings.Join(c.scopes, ", "))
	}
	return given, nil
}
