package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/luatool/luatool/cmd/luatool/internal/jsonedit"
)

// installConfig is what the flags of install and dev say.
type installConfig struct {
	// print is --print: show the entry instead of writing it.
	print bool
	// name is --name: the server's name in the client's file.
	name string
	// scope is --scope: which of the client's files.
	scope string
	// inspector is dev's --inspector: start the MCP Inspector too.
	inspector bool
}

// flags registers the flags of install and dev on fs.
func (c *installConfig) flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.print, "print", false, "install: print the entry and the file it goes to, and write nothing")
	fs.StringVar(&c.name, "name", "luatool", "install: the server's `NAME` in the client's configuration")
	fs.StringVar(&c.scope, "scope", "", "install: the client's `SCOPE`: claude-code local (default), user or project; cursor and vscode project (default) or user")
	fs.BoolVar(&c.inspector, "inspector", false, "dev: start the MCP Inspector (npx @modelcontextprotocol/inspector) on the server too")
}

func init() {
	commands["install"] = command{
		usage: "install CLIENT [-- FLAGS]",
		help:  "add luatool serve to an MCP client's configuration: claude-code, claude-desktop, cursor or vscode",
		about: `Adds a server entry that starts this luatool binary with serve to the client's own
configuration file: the absolute path of the binary, --root (the project root:
--root, else the current directory, which may not be / or your home directory
unless given with --root), a --tools for each tool directory given, and the serve
flags given after --, which are checked as serve would read them. The files:

  claude-code     ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json): --scope local
                  (the default: the project's entry, projects[PATH].mcpServers, PATH
                  the git work tree holding the root) or user (mcpServers, every
                  project); --scope project: ROOT/.mcp.json
  claude-desktop  claude_desktop_config.json in ~/Library/Application Support/Claude
                  (macOS), %APPDATA%\Claude (Windows), $XDG_CONFIG_HOME/Claude
  cursor          ROOT/.cursor/mcp.json; --scope user: ~/.cursor/mcp.json
  vscode          ROOT/.vscode/mcp.json ("servers"); --scope user: mcp.json of the
                  user profile (~/.config/Code/User, ~/Library/Application
                  Support/Code/User, %APPDATA%\Code\User)

By default the entry goes where it applies to this project only, since it serves
this project's root. Every other byte of the file stays as it was: other servers
and keys, their order and formatting. Running install again changes nothing; an
entry of the same name that differs is replaced, and install says what it was.
Before changing a file it copies it to FILE.bak; it writes a temporary file and
renames it over the file (links followed, the mode kept). A file that is not JSON
(comments included) is refused with its line and column, and left as it is.

--print prints the entry as it would be written, under its keys, and writes
nothing. --name NAME names the server (default luatool).

  luatool --tools ./tools install claude-code
  luatool --root ~/proj --tools ~/proj/tools install claude-desktop -- --allow Bash`,
		flags: []string{"tools", "root", "name", "scope", "print"},
		run:   runInstall,
	}
}

// runInstall adds a serve entry for this binary to an MCP client's configuration.
func runInstall(a *app, args []string) int {
	if len(args) == 0 {
		return a.errorf("usage: luatool install CLIENT [-- SERVE-FLAGS]: CLIENT is %s", strings.Join(clientNames(), ", "))
	}
	name, extra := args[0], args[1:]
	client, ok := mcpClients[name]
	if !ok {
		return a.errorf("install: unknown client %q: the clients are %s", name, strings.Join(clientNames(), ", "))
	}
	scope, err := client.scope(name, a.cfg.install.scope)
	if err != nil {
		return a.errorf("%v", err)
	}
	if err := checkServerName(a.cfg.install.name); err != nil {
		return a.errorf("%v", err)
	}
	command, serveArgs, err := a.serveCommand(extra)
	if err != nil {
		return a.errorf("install: %v", err)
	}
	file, keys := client.place(thisMachine(serveArgs[2]), scope, a.cfg.install.name)
	if scope == "project" {
		if err := checkInProject(serveArgs[2], file); err != nil {
			return a.errorf("install: %v", err)
		}
	}
	entry := client.entry(command, serveArgs)
	if a.cfg.install.print {
		return a.printEntry(file, keys, entry)
	}
	// The client's files in the user's directories are private, as the clients
	// make them; a project's is shared with whoever works on it.
	newMode := fs.FileMode(0o600)
	if scope == "project" {
		newMode = 0o644
	}
	change, err := writeEntry(file, keys, entry, newMode)
	if err != nil {
		return a.errorf("install: %v", err)
	}
	where := name
	if scope != "" {
		where += ", " + scope + " scope"
	}
	switch {
	case change.old == nil:
		fmt.Fprintf(a.stdout, "added %s to %s (%s)\n", a.cfg.install.name, file, where)
	case change.same:
		fmt.Fprintf(a.stdout, "%s in %s (%s) is already this entry: nothing changed\n", a.cfg.install.name, file, where)
		return ExitOK
	default:
		fmt.Fprintf(a.stdout, "replaced %s in %s (%s); it was %s\n", a.cfg.install.name, file, where, compactJSON(change.old))
	}
	if change.backup != "" {
		fmt.Fprintf(a.stdout, "the file as it was is in %s\n", change.backup)
	}
	fmt.Fprintf(a.stdout, "  %s %s\n%s\n", command, strings.Join(serveArgs, " "), client.next(a.cfg.install.name, scope))
	return ExitOK
}

// serveCommand is the command a client runs to start luatool serve as this command
// line says: the binary's absolute path (links resolved), and serve's arguments,
// the root third (serve --root ROOT), then a --tools for each tool directory, then
// extra, which must be flags serve takes.
func (a *app) serveCommand(extra []string) (string, []string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("cannot tell where this luatool binary is: %w", err)
	}
	exe = resolvedPath(exe)
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(a.stderr, "luatool: warning: %s is a temporary binary (go run?), removed once it exits: build luatool (go build, go install) and install from that\n", exe)
	}
	root, err := a.projectRoot()
	if err != nil {
		return "", nil, err
	}
	if a.cfg.root == "" {
		if err := checkImplicitRoot(root); err != nil {
			return "", nil, err
		}
	}
	args := []string{"serve", "--root", root}
	for _, dir := range a.cfg.tools {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", nil, err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return "", nil, fmt.Errorf("--tools %s: not a directory", dir)
		}
		args = append(args, "--tools", abs)
	}
	if err := checkServeFlags(extra); err != nil {
		return "", nil, err
	}
	return exe, append(args, extra...), nil
}

// checkServeFlags refuses flags for serve that serve would refuse, so that a typo
// is told now rather than by a client that cannot start the server; --root and
// --tools, which install writes itself from the flags before it; and --http, since
// the client speaks to the server over stdio.
func checkServeFlags(extra []string) error {
	probe := &app{}
	positional, err := parseInterspersed(probe.flags(), extra)
	switch {
	case err != nil:
		return fmt.Errorf("the flags for serve after --: %v", err)
	case len(positional) > 0:
		return fmt.Errorf("the flags for serve after --: %q is not a flag (serve takes no arguments)", positional[0])
	case probe.cfg.root != "" || len(probe.cfg.tools) > 0:
		return errors.New("give --root and --tools before install (luatool --tools DIR install CLIENT): install makes them absolute")
	case probe.cfg.http != "":
		return errors.New("--http after --: the client starts serve and speaks to it over stdin and stdout; for HTTP, run luatool serve --http yourself and give the client its URL")
	}
	return nil
}

// checkServerName refuses a server name the clients do not all take: letters,
// digits, - and _.
func checkServerName(name string) error {
	ok := name != "" && len(name) <= 64
	for _, r := range name {
		ok = ok && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}
	if !ok {
		return fmt.Errorf("--name %q: a server name is 1 to 64 letters, digits, - or _", name)
	}
	return nil
}

// printEntry prints, for --print, the entry under its keys on stdout and the file
// it would go to on stderr.
func (a *app) printEntry(file string, keys []string, entry json.RawMessage) int {
	var v any = json.RawMessage(entry)
	for i := len(keys) - 1; i >= 0; i-- {
		v = map[string]any{keys[i]: v}
	}
	b, _ := json.MarshalIndent(v, "", "  ") // built of valid JSON: cannot fail
	fmt.Fprintf(a.stderr, "luatool: would write to %s (--print: nothing written):\n", file)
	fmt.Fprintf(a.stdout, "%s\n", b)
	return ExitOK
}

// An entryChange is what writeEntry did: the entry that was there (nil: none),
// whether it was the same, and the backup of the file as it was ("": none made).
type entryChange struct {
	old    json.RawMessage
	same   bool
	backup string
}

// writeEntry sets the entry at keys in the JSON file, unless the file holds an equal
// entry there already. A file that exists is copied to FILE.bak first; the file is
// then replaced by renaming a complete new one over it, so that a reader (a running
// client) never sees half a file, with the mode it had; a new file gets newMode. A
// file that is not JSON is left untouched.
func writeEntry(file string, keys []string, entry json.RawMessage, newMode fs.FileMode) (entryChange, error) {
	path, mode, doc, err := readConfig(file)
	if err != nil {
		return entryChange{}, err
	}
	old, err := jsonedit.Get(doc, keys...)
	if err != nil {
		return entryChange{}, configError(path, err)
	}
	if old != nil && sameJSON(old, entry) {
		return entryChange{old: old, same: true}, nil
	}
	updated, err := jsonedit.Set(doc, entry, keys...)
	if err != nil {
		return entryChange{}, configError(path, err)
	}
	change := entryChange{old: old}
	if doc != nil {
		change.backup = path + ".bak"
		if err := writeAtomic(change.backup, doc, mode); err != nil {
			return entryChange{}, fmt.Errorf("the backup of %s: %w (the file is not changed)", path, err)
		}
	} else {
		mode = newMode
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return entryChange{}, err
		}
	}
	if err := writeAtomic(path, updated, mode); err != nil {
		return entryChange{}, err
	}
	return change, nil
}

// checkInProject refuses a project's client file that is, or lies in a directory
// that is, a link out of the project root: a cloned repository's .mcp.json linked
// to ~/.claude.json, or its .vscode linked to the home directory, must not make
// install write a file of the user's (an entry for every project, or a file
// clobbered).
func checkInProject(root, file string) error {
	target := resolvedPath(file)
	if target == file { // not there (or a dangling link, which the rename replaces): its directory
		target = filepath.Join(resolvedPath(filepath.Dir(file)), filepath.Base(file))
	}
	rel, err := filepath.Rel(resolvedPath(root), target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s leads to %s, outside the project %s: a project's file is not followed out of it (remove the link, or use --print and edit the file yourself)", file, target, root)
	}
	return nil
}

// readConfig reads a client's file: the path written to (the target of a link),
// its mode, and its content; nil content when the file does not exist.
func readConfig(file string) (path string, mode fs.FileMode, doc []byte, err error) {
	path = resolvedPath(file)
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, 0, nil, nil
	}
	if err != nil {
		return "", 0, nil, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, nil, fmt.Errorf("%s is not a regular file", path)
	}
	doc, err = os.ReadFile(path)
	if err != nil {
		return "", 0, nil, err
	}
	return path, st.Mode().Perm(), doc, nil
}

// configError names the file and the place of a file's syntax error.
func configError(path string, err error) error {
	var se *jsonedit.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s:%d:%d: %s; the file is left as it is: mend it, or use --print and edit it yourself", path, se.Line, se.Column, se.Msg)
	}
	return fmt.Errorf("%s: %w; the file is left as it is", path, err)
}

// sameJSON reports whether two JSON values are equal as values (formatting and
// member order aside).
func sameJSON(x, y json.RawMessage) bool {
	var vx, vy any
	return json.Unmarshal(x, &vx) == nil && json.Unmarshal(y, &vy) == nil && reflect.DeepEqual(vx, vy)
}

// compactJSON is a JSON value on one line.
func compactJSON(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// writeAtomic replaces path by data with mode: a temporary file beside it, synced,
// renamed over it.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
