package cli

// Workspace trust: the configuration a project directory brings is used only once a
// person has said the folder may bring it.
//
// The project directory is the root (--root, default the working directory). What it
// brings is its .luatool/tools directory (tool files, and their lib/ modules, whose
// code runs as luatool loads them) and its .luatool/settings.json (a mode and rules
// that decide what calls may do). Neither is used until the folder is trusted:
// `luatool trust` records it, and on a terminal the first run asks. What the command
// line names (--tools DIR, --settings FILE) and the user's own configuration need no
// trust.
//
// A trust is kept by the folder's absolute path with symlinks resolved, and covers
// that folder only: luatool reads project configuration at the root alone, so a
// subfolder with a .luatool of its own (a vendored or cloned repository, a fixture)
// is another project. The settings file is trusted as it was: its SHA-256 is
// recorded, so that a file a pull or a checkout changed (or brought) is asked about
// again, as direnv does for an .envrc. The file is read once, and the bytes hashed are
// the bytes parsed and used (and shown): a file changed after the hash was taken
// cannot slip in under the trust. Tool files are not hashed: they are the code being
// worked on in the folder, and every save would otherwise ask again.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/settings"
	"github.com/luatool/luatool/internal/dirlock"
	"github.com/luatool/luatool/internal/spell"
)

// projectToolsDir and projectSettingsFile are where a project keeps its
// configuration, relative to the project root.
var (
	projectToolsDir     = filepath.Join(".luatool", "tools")
	projectSettingsFile = filepath.Join(".luatool", "settings.json")
)

// projectRoot returns the project directory, absolute: --root, or the working
// directory. It must be a directory.
func (a *app) projectRoot() (string, error) {
	root := a.cfg.root
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		root = wd
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if err := needDir("--root", root); err != nil {
		return "", err
	}
	return root, nil
}

// projectUse is what of the project's configuration this run uses.
type projectUse struct {
	// tools is the project's tool directory, or "" when it is not used.
	tools string
	// settings is the project's settings file as it was read when its trust was
	// decided; nil when it is not used. hash is the SHA-256 of what was read.
	settings *readLayer
	hash     string
}

// project decides, once per command, what of the project's configuration is used:
// what the command line does not name already, and only when the folder is trusted
// (see trusted). The first call may ask on the terminal.
func (a *app) project() (projectUse, error) {
	if a.projectUse != nil {
		return *a.projectUse, nil
	}
	root, err := a.projectRoot()
	if err != nil {
		return projectUse{}, err
	}
	p, err := readProject(root)
	if err != nil {
		return projectUse{}, err
	}
	// A --tools or --settings naming the project's own directory or file makes it
	// the person's: it is used as named, not a second time as project configuration.
	for _, dir := range a.cfg.tools {
		if sameFile(dir, p.tools) {
			p.tools = ""
		}
	}
	if sameFile(a.cfg.settings, p.settings) {
		p.settings = ""
	}
	var use projectUse
	if (p.tools != "" || p.settings != "") && a.trusted(p) {
		use.tools = p.tools
		if p.settings != "" {
			use.settings, use.hash = &p.read, p.hash
		}
	}
	a.projectUse = &use
	return use, nil
}

// sameFile reports whether the paths a and b name the same existing file or
// directory; an empty path names none.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// trusted reports whether the project's configuration may be used: the folder is
// on the trust list with its settings file as it is now, or, on a terminal, the
// person says yes (which puts it on the list). Otherwise one notice on stderr says
// what is skipped and which command trusts it. An unreadable list trusts nothing.
func (a *app) trusted(p project) bool {
	listPath := trustListPath()
	list, err := readTrustList(listPath)
	if err != nil {
		// Asking would rewrite the list and lose what it holds: skip.
		a.logger().Warn(fmt.Sprintf("%v; taking no folder as trusted", err))
	}
	rec, found := list.find(p.key)
	if found && rec.Settings == p.hash {
		return true
	}
	changed := found // on the list, but the settings file is not what was trusted
	if !a.terminal || a.cfg.noPrompt || err != nil {
		why := "the folder is not trusted"
		if changed {
			why = filepath.Join(p.root, projectSettingsFile) + " is not as it was when the folder was trusted"
		}
		a.logger().Info(fmt.Sprintf("skipping the project configuration of %s (%s): %s; to use it, run: luatool trust %s",
			p.root, strings.Join(p.parts(), ", "), why, shellWord(p.root)))
		return false
	}
	if !askTrust(a.lines(), a.stderr, p, changed) {
		fmt.Fprintf(a.stderr, "luatool: skipping the project configuration of %s for this run\n", p.root)
		return false
	}
	if err := updateTrustList(listPath, func(l *trustList) error {
		l.add(trustedFolder{Path: p.key, Settings: p.hash})
		return nil
	}); err != nil {
		fmt.Fprintf(a.stderr, "luatool: warning: %s is trusted for this run only: %v\n", p.root, err)
	}
	return true
}

// askTrust shows what the folder would add and asks whether to trust it; only "y"
// or "yes" is a yes.
func askTrust(in *bufio.Reader, out io.Writer, p project, changed bool) bool {
	if changed {
		fmt.Fprintf(out, "luatool: %s is not as it was when you trusted %s.\n", filepath.Join(p.root, projectSettingsFile), p.root)
	} else {
		fmt.Fprintf(out, "luatool: %s is not trusted.\n", p.root)
	}
	fmt.Fprintln(out, "Its project configuration would add:")
	p.describe(out)
	fmt.Fprintf(out, "Trust this folder? (luatool trust --revoke %s undoes it)\n  [y] yes, trust it and use its configuration\n  [n] no, run without it this time\n> ", shellWord(p.root))
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(out)
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// lines is stdin read by lines, one reader shared by every prompt of the run, so
// that no prompt loses what another read ahead.
func (a *app) lines() *bufio.Reader {
	if a.in == nil {
		a.in = bufio.NewReader(a.stdin)
	}
	return a.in
}

// shellWord quotes a path for the shell when it holds anything but letters, digits
// and /._-+,:@.
func shellWord(s string) string {
	plain := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@", r)
	}
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return !plain(r) }) >= 0 {
		return shellQuote(s)
	}
	return s
}

// project is the configuration a project directory holds.
type project struct {
	// root is the project directory, absolute, as given.
	root string
	// key is root with symlinks resolved: how the trust list names it.
	key string
	// tools is root/.luatool/tools when that is a directory, else "".
	tools string
	// settings is root/.luatool/settings.json when it exists, else "".
	settings string
	// hash is the SHA-256 of the settings file, "sha256:HEX"; "" when there is none.
	hash string
	// read is the settings file parsed from the bytes hashed.
	read readLayer
}

// readProject finds the configuration of the project at root (absolute). The
// settings file is read once: its hash and its settings come from the same bytes.
func readProject(root string) (project, error) {
	key, err := filepath.EvalSymlinks(root)
	if err != nil {
		return project{}, err
	}
	p := project{root: root, key: key}
	if st, err := os.Stat(filepath.Join(root, projectToolsDir)); err == nil && st.IsDir() {
		p.tools = filepath.Join(root, projectToolsDir)
	}
	file := filepath.Join(root, projectSettingsFile)
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return project{}, fmt.Errorf("%s: %w", file, err)
	default:
		sum := sha256.Sum256(data)
		p.settings, p.hash = file, "sha256:"+hex.EncodeToString(sum[:])
		p.read.settings, p.read.warnings, p.read.err = settings.Parse(file, data, settings.Layer{Name: projectLayer, Root: root, Home: home()})
	}
	return p, nil
}

// parts names what the project holds, relative to its root.
func (p project) parts() []string {
	var out []string
	if p.tools != "" {
		out = append(out, projectToolsDir)
	}
	if p.settings != "" {
		out = append(out, projectSettingsFile)
	}
	return out
}

// maxListedFiles bounds the tool files a description names one by one.
const maxListedFiles = 20

// describe writes what the project would add, indented: its Lua files, and the
// mode, rules and directories of its settings file.
func (p project) describe(w io.Writer) {
	if p.tools != "" {
		files := luaFiles(p.tools)
		fmt.Fprintf(w, "  %s: %s, run as luatool loads them\n", projectToolsDir, plural(len(files), "Lua file"))
		for i, f := range files {
			if i == maxListedFiles {
				fmt.Fprintf(w, "    and %d more\n", len(files)-i)
				break
			}
			fmt.Fprintf(w, "    %s\n", f)
		}
	}
	if p.settings == "" {
		return
	}
	s, err := p.read.settings, p.read.err
	if err != nil {
		fmt.Fprintf(w, "  %s, which does not read: %s\n", projectSettingsFile, strings.ReplaceAll(err.Error(), "\n", "\n    "))
		return
	}
	fmt.Fprintf(w, "  %s:\n", projectSettingsFile)
	lines := settingsLines(s)
	if len(lines) == 0 {
		lines = []string{"nothing: no mode, rules, directories, network lists, env or hooks"}
	}
	for _, l := range lines {
		fmt.Fprintf(w, "    %s\n", l)
	}
}

// settingsLines describes, a line each, what a settings file changes: each key it
// sets of those engine/settings reads (TestTrustShowsEveryKey sets every one).
func settingsLines(s settings.Settings) []string {
	var out []string
	perm := s.Permissions
	if perm.Mode != "" {
		out = append(out, fmt.Sprintf("mode %s", perm.Mode))
	}
	for _, l := range []struct {
		name  string
		rules []rules.Rule
	}{{"allow", perm.Allow}, {"ask", perm.Ask}, {"deny", perm.Deny}} {
		if len(l.rules) > 0 {
			out = append(out, fmt.Sprintf("%s: %s", l.name, ruleList(l.rules)))
		}
	}
	if len(perm.AdditionalDirectories) > 0 {
		out = append(out, "additional directories: "+strings.Join(perm.AdditionalDirectories, ", "))
	}
	// The network allow list names what tools may reach although it is loopback, a
	// private or a link-local address (a cloud's metadata service among them).
	if len(s.Network.Allow) > 0 {
		out = append(out, "network allow (reachable although loopback, private or link-local): "+patternList(s.Network.Allow))
	}
	if len(s.Network.Deny) > 0 {
		out = append(out, "network deny: "+patternList(s.Network.Deny))
	}
	if len(s.Env) > 0 {
		out = append(out, "env: "+envList(s.Env))
	}
	// Hooks are commands that run at every matching call: the person trusting the
	// folder sees each one.
	for _, h := range s.Hooks.Commands {
		name := h.Command
		if name == "" {
			name = strings.Join(h.Args, " ")
		}
		matcher := h.Matcher
		if matcher == "" {
			matcher = "*"
		}
		out = append(out, fmt.Sprintf("hooks: %s %s: %s", h.Event, matcher, name))
	}
	if s.Hooks.Disabled {
		out = append(out, "disableAllHooks: every hook is off")
	}
	return out
}

// luaFiles lists the .lua files under dir, slash-separated and relative to it, in
// order; unreadable parts are left out.
func luaFiles(dir string) []string {
	var out []string
	fsys := os.DirFS(dir)
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// ruleList renders rules as "A, B, C".
func ruleList(list []rules.Rule) string {
	return joined(list, func(r rules.Rule) string { return r.Text })
}

// patternList renders host patterns as "a, b, c".
func patternList(es []settings.Entry) string {
	return joined(es, func(e settings.Entry) string { return e.Pattern })
}

// joined renders items as "a, b, c", each as text gives it.
func joined[T any](items []T, text func(T) string) string {
	texts := make([]string, len(items))
	for i, x := range items {
		texts[i] = text(x)
	}
	return strings.Join(texts, ", ")
}

// announcePermissions says on stderr what makes this command's permissions other
// than the defaults a person would assume: a mode other than default, with the file
// or flag that set it, and the allow rules of project files, with the file.
func (a *app) announcePermissions(perm rules.Settings) {
	if perm.Mode != "" && perm.Mode != rules.ModeDefault {
		by := perm.ModeFile
		if by == "" {
			by = perm.ModeSource
		}
		a.logger().Info(fmt.Sprintf("mode %s, set by %s", perm.Mode, by))
	}
	var files []string
	byFile := map[string][]rules.Rule{}
	for _, r := range perm.Allow {
		if r.Source != projectLayer {
			continue
		}
		if _, ok := byFile[r.File]; !ok {
			files = append(files, r.File)
		}
		byFile[r.File] = append(byFile[r.File], r)
	}
	for _, f := range files {
		a.logger().Info(fmt.Sprintf("%s from %s: %s", plural(len(byFile[f]), "allow rule"), f, ruleList(byFile[f])))
	}
}

// announceNetwork says on stderr which hosts a project's settings let tools reach
// although they are loopback, private or link-local addresses, with the file.
func (a *app) announceNetwork(n settings.Network) {
	var files []string
	byFile := map[string][]string{}
	for _, e := range n.Allow {
		if e.Source != projectLayer {
			continue
		}
		if _, ok := byFile[e.File]; !ok {
			files = append(files, e.File)
		}
		byFile[e.File] = append(byFile[e.File], e.Pattern)
	}
	for _, f := range files {
		fmt.Fprintf(a.stderr, "luatool: network allow list from %s: %s\n", f, strings.Join(byFile[f], ", "))
	}
}

// trustListPath is the file of trusted folders, trusted.json in the user's luatool
// configuration directory; "" when there is none.
func trustListPath() string {
	dir := userConfigDir(home(), os.Getenv("XDG_CONFIG_HOME"))
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "luatool", "trusted.json")
}

// trustList is the content of the trust list file.
type trustList struct {
	// Folders are the trusted folders, in order of path.
	Folders []trustedFolder `json:"folders"`
}

// trustedFolder is one trusted folder.
type trustedFolder struct {
	// Path is the folder, absolute, with symlinks resolved.
	Path string `json:"path"`
	// Settings is the SHA-256 of its .luatool/settings.json when it was trusted,
	// "sha256:HEX"; empty when it had none.
	Settings string `json:"settings,omitempty"`
}

// readTrustList reads the trust list at path; a missing file (or no path) is an
// empty list. Anything it cannot take whole is an error naming the file.
func readTrustList(path string) (trustList, error) {
	if path == "" {
		return trustList{}, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return trustList{}, nil
	}
	if err != nil {
		return trustList{}, fmt.Errorf("the trust list %s: %w", path, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var l trustList
	if err := dec.Decode(&l); err != nil {
		return trustList{}, fmt.Errorf("the trust list %s: %v", path, err)
	}
	for i, f := range l.Folders {
		if !filepath.IsAbs(f.Path) {
			return trustList{}, fmt.Errorf("the trust list %s: folders[%d]: %q is not an absolute path", path, i, f.Path)
		}
	}
	return l, nil
}

// updateTrustList changes the trust list at path: under the lock every luatool
// process takes on its directory (package dirlock), it reads the list as it is now,
// applies change and writes the result, so that two runs trusting folders at once
// both keep theirs. An error of change leaves the list as it was.
func updateTrustList(path string, change func(*trustList) error) error {
	if path == "" {
		return errors.New("no configuration directory to keep the trust list in: set XDG_CONFIG_HOME or HOME")
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), trustLockWait)
	defer cancel()
	unlock, err := dirlock.Lock(ctx, d)
	if err != nil {
		return fmt.Errorf("waiting for another luatool to finish with %s: %w", path, err)
	}
	defer unlock()
	list, err := readTrustList(path)
	if err != nil {
		return err
	}
	if err := change(&list); err != nil {
		return err
	}
	return list.write(path)
}

// trustLockWait is how long updateTrustList waits for another process's update.
const trustLockWait = 10 * time.Second

// write replaces the trust list at path whole (updateTrustList holds the lock): the
// new content goes to a temporary file beside it, which is then renamed over it, so
// that a reader never sees half a list.
func (l trustList) write(path string) error {
	slices.SortFunc(l.Folders, func(x, y trustedFolder) int { return strings.Compare(x.Path, y.Path) })
	if l.Folders == nil {
		l.Folders = []trustedFolder{}
	}
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("the trust list: %w", err)
	}
	return nil
}

// find returns the entry of the folder at path (symlinks resolved).
func (l trustList) find(path string) (trustedFolder, bool) {
	for _, f := range l.Folders {
		if f.Path == path {
			return f, true
		}
	}
	return trustedFolder{}, false
}

// add puts f on the list, in place of an entry for the same folder.
func (l *trustList) add(f trustedFolder) {
	l.remove(f.Path)
	l.Folders = append(l.Folders, f)
}

// remove takes the folder at path off the list and reports whether it was on it.
func (l *trustList) remove(path string) bool {
	n := len(l.Folders)
	l.Folders = slices.DeleteFunc(l.Folders, func(f trustedFolder) bool { return f.Path == path })
	return len(l.Folders) < n
}

// runTrust is luatool trust [DIR], --revoke [DIR] and --list.
func runTrust(a *app, args []string) int {
	switch {
	case a.cfg.revoke && a.cfg.listTrusted:
		return a.errorf("trust: --revoke and --list do not go together")
	case a.cfg.listTrusted && len(args) > 0:
		return a.errorf("trust --list takes no directory")
	case len(args) > 1:
		return a.errorf("usage: luatool trust [--revoke] [DIR]  or  luatool trust --list")
	}
	path := trustListPath()
	list, err := readTrustList(path)
	if err != nil {
		// Rewriting a list that does not read would lose what it holds.
		return a.errorf("%v (fix or remove the file)", err)
	}
	if a.cfg.listTrusted {
		a.listTrusted(list)
		return ExitOK
	}
	dir := ""
	if len(args) == 1 {
		dir = args[0]
	}
	if a.cfg.revoke {
		return a.revokeTrust(path, dir)
	}
	if dir == "" {
		if dir, err = a.projectRoot(); err != nil {
			return a.errorf("%v", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return a.errorf("%v", err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return a.errorf("trust %s: not a directory", dir)
	}
	p, err := readProject(abs)
	if err != nil {
		return a.errorf("%v", err)
	}
	if p.settings != "" && p.read.err != nil {
		// A file that does not read would be trusted unseen.
		return a.errorf("%v\nnot trusted: fix the settings file first", p.read.err)
	}
	if err := updateTrustList(path, func(l *trustList) error {
		l.add(trustedFolder{Path: p.key, Settings: p.hash})
		return nil
	}); err != nil {
		return a.errorf("%v", err)
	}
	fmt.Fprintf(a.stdout, "trusted %s\n", p.key)
	if len(p.parts()) == 0 {
		fmt.Fprintf(a.stdout, "  it has no project configuration yet (%s, %s)\n", projectToolsDir, projectSettingsFile)
	} else {
		p.describe(a.stdout)
	}
	return ExitOK
}

// revokeTrust takes dir (default: the project root) off the list at path.
func (a *app) revokeTrust(path, dir string) int {
	if dir == "" {
		var err error
		if dir, err = a.projectRoot(); err != nil {
			return a.errorf("%v", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return a.errorf("%v", err)
	}
	// A folder that is gone can still be revoked, by the path as written.
	key := abs
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		key = resolved
	}
	if err := updateTrustList(path, func(l *trustList) error {
		if l.remove(key) {
			return nil
		}
		msg := fmt.Sprintf("%s is not trusted", key)
		var paths []string
		for _, f := range l.Folders {
			paths = append(paths, f.Path)
		}
		if s := spell.Suggest(key, paths); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return errors.New(msg + "; luatool trust --list lists the trusted folders")
	}); err != nil {
		return a.errorf("%v", err)
	}
	fmt.Fprintf(a.stdout, "no longer trusted: %s\n", key)
	return ExitOK
}

// listTrusted prints the trusted folders, each with whether its trust still holds.
func (a *app) listTrusted(list trustList) {
	type entry struct {
		Path     string `json:"path"`
		Settings string `json:"settings,omitempty"`
		State    string `json:"state"`
	}
	var out []entry
	for _, f := range list.Folders {
		state := "trusted"
		if p, err := readProject(f.Path); err != nil {
			state = "missing"
		} else if p.hash != f.Settings {
			state = "changed"
		}
		out = append(out, entry{f.Path, f.Settings, state})
	}
	if a.cfg.json {
		if out == nil {
			out = []entry{}
		}
		a.printJSON(out)
		return
	}
	if len(out) == 0 {
		fmt.Fprintln(a.stderr, "luatool: no folder is trusted; luatool trust DIR trusts one")
		return
	}
	notes := map[string]string{
		"trusted": "trusted",
		"changed": "settings changed since: asks again",
		"missing": "missing",
	}
	t := newTable(a.stdout)
	for _, e := range out {
		t.row(e.Path, notes[e.State])
	}
	t.flush()
}
