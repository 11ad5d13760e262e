package cli

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/mcpserver"
	"github.com/luatool/luatool/engine/settings"
)

// A tokenTable is the token file of --tokens as served: read at start, and again
// at each SIGHUP (reload), when the tokens it authenticates by are replaced in
// place. Editing the file does nothing by itself: a half-written file is never
// served.
type tokenTable struct {
	a    *app
	path string
	eng  *engine.Engine
	// tokens authenticate the requests; reload replaces what they hold.
	tokens *mcpserver.Tokens
	// read is the file as last read, to tell what a reload changed.
	read parsedTokens
}

// parsedTokens are what a token file says: its credentials, the table that
// authenticates them, and its principals' profiles by the absolute path of their
// settings file.
type parsedTokens struct {
	creds    []mcpserver.Credential
	tokens   *mcpserver.Tokens
	profiles map[string]profileFile
}

// A profileFile is a principal's settings file as read, and its profile.
type profileFile struct {
	data    []byte
	profile *engine.Profile
}

// loadTokens reads the token file of --tokens (readTokens) for eng.
func (a *app) loadTokens(path string, eng *engine.Engine) (*tokenTable, error) {
	read, err := a.readTokens(path, eng, nil)
	if err != nil {
		return nil, err
	}
	return &tokenTable{a: a, path: path, eng: eng, tokens: read.tokens, read: read}, nil
}

// reload reads the token file again and serves it from the next request on: a
// principal it no longer lists is refused there (401), while requests already
// authenticated, of any principal, go on. It logs which principals were added,
// removed or changed (a new token or profile), by name: never a token. A file that
// does not read, as a whole, leaves the tokens in force, and the log says why,
// with file:line.
func (t *tokenTable) reload() {
	log := t.a.logger()
	read, err := t.a.readTokens(t.path, t.eng, t.read.profiles)
	if err != nil {
		log.Error("tokens not reloaded: the ones in force are kept", "file", t.path, "error", err)
		return
	}
	added, removed, changed := credChanges(t.read.creds, read.creds)
	t.tokens.Replace(read.tokens)
	t.read = read
	log.Info("tokens reloaded", "file", t.path, "principals", len(read.creds), "added", added, "removed", removed, "changed", changed)
}

// credChanges names the principals after has that before has not (added), those
// it has no more (removed), and those whose token or profile differ (changed).
func credChanges(before, after []mcpserver.Credential) (added, removed, changed []string) {
	type key struct {
		hash    [sha256.Size]byte
		profile *engine.Profile
	}
	old := map[string]key{}
	for _, c := range before {
		old[c.Name] = key{sha256.Sum256([]byte(c.Token)), c.Profile}
	}
	for _, c := range after {
		k, ok := old[c.Name]
		switch {
		case !ok:
			added = append(added, c.Name)
		case k != key{sha256.Sum256([]byte(c.Token)), c.Profile}:
			changed = append(changed, c.Name)
		}
		delete(old, c.Name)
	}
	for name := range old {
		removed = append(removed, name)
	}
	slices.Sort(removed)
	return added, removed, changed
}

// readTokens reads a token file: one principal a line, NAME TOKEN [PROFILE],
// fields separated by blanks; blank lines and lines starting with # are skipped.
// The tokens are passwords, so a file that users other than its owner may read or
// write is refused, as ssh refuses such a private key: a warning would be read
// after the tokens had leaked. PROFILE is a settings file, relative to the token
// file, compiled for eng: the principal's rules and mode. Principals naming the
// same file share one profile, and a file of prev whose content is unchanged keeps
// its profile (and its principals their tool list). Every problem is reported,
// each with file:line, and any problem fails the whole file: nothing is served on
// part of it.
func (a *app) readTokens(path string, eng *engine.Engine, prev map[string]profileFile) (parsedTokens, error) {
	data, err := readPrivate(path)
	if err != nil {
		return parsedTokens{}, err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return parsedTokens{}, fmt.Errorf("--tokens: %w", err)
	}
	var (
		read = parsedTokens{profiles: map[string]profileFile{}}
		errs []error
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		at := fmt.Sprintf("%s:%d", path, n)
		fields := strings.Fields(line)
		if len(fields) < 2 || len(fields) > 3 {
			errs = append(errs, fmt.Errorf("%s: a line is NAME TOKEN [PROFILE], not %d field(s)", at, len(fields)))
			continue
		}
		c := mcpserver.Credential{Name: fields[0], Token: fields[1], Source: at}
		if len(fields) == 3 {
			file := fields[2]
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
			p, ok := read.profiles[file]
			if !ok {
				if p, err = a.readProfileFile(file, eng, prev[file]); err != nil {
					errs = append(errs, fmt.Errorf("%s: profile %s: %w", at, fields[2], err))
				}
				read.profiles[file] = p
			}
			c.Profile = p.profile
		}
		// A line whose profile failed is still checked against the others below.
		read.creds = append(read.creds, c)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", path, err))
	}
	if len(read.creds) == 0 && len(errs) == 0 {
		return parsedTokens{}, fmt.Errorf("%s: no principal: a line is NAME TOKEN [PROFILE]", path)
	}
	read.tokens, err = mcpserver.NewTokens(read.creds)
	if err != nil || len(errs) > 0 {
		return parsedTokens{}, errors.Join(append(errs, err)...)
	}
	return read, nil
}

// readProfileFile reads a principal's settings file (readProfile), or keeps prev's
// profile when the file is what prev read.
func (a *app) readProfileFile(file string, eng *engine.Engine, prev profileFile) (profileFile, error) {
	data, err := os.ReadFile(file)
	if err == nil && prev.profile != nil && bytes.Equal(data, prev.data) {
		return prev, nil
	}
	// A file that does not read is readProfile's to tell, in its words.
	p, err := a.readProfile(file, eng)
	return profileFile{data: data, profile: p}, err
}

// readPrivate reads a file that only its owner may read or write (mode 0600 or
// narrower). Its mode is the open file's, so that it cannot change between the check
// and the read. Windows has no such modes: there the file is read as it is.
func readPrivate(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--tokens: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("--tokens: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("%s: mode %04o lets other users read or change its tokens; make it private first: chmod 600 %s", path, perm, shellWord(path))
	}
	return io.ReadAll(f)
}

// readProfile reads a principal's settings file, rooted at its directory as a
// --settings file is, and compiles it for eng. Additional directories cannot be a
// principal's own (the tools' roots are the server's), so a profile naming some is
// an error rather than a promise not kept.
func (a *app) readProfile(file string, eng *engine.Engine) (*engine.Profile, error) {
	s, warnings, err := settings.ReadFile(file, settings.Layer{Name: "profile", Root: filepath.Dir(file), Home: home()})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		a.logger().Warn(w)
	}
	if len(s.Permissions.AdditionalDirectories) > 0 {
		return nil, errors.New("additionalDirectories cannot be set for one principal: the directories the tools reach are the server's, for every principal")
	}
	return eng.NewProfile(s.Permissions)
}

// localTokenBytes is the length of the token serve makes for itself, in random
// bytes: 256 bits, written as 64 hex digits.
const localTokenBytes = 32

// makeLocalToken makes the bearer token of a loopback server served without
// --tokens, and keeps it in a file of the user's that only they may read, named by
// the address (see tokenFile), for client configurations to read. It returns the
// token, the file, and the function that removes the file when serve ends.
func makeLocalToken(addr net.Addr) (token, file string, remove func(), err error) {
	raw := make([]byte, localTokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", "", nil, fmt.Errorf("making a token: %w", err)
	}
	token = hex.EncodeToString(raw)
	file, err = tokenFile(addr)
	if err != nil {
		return "", "", nil, err
	}
	if err := writePrivate(file, []byte(token+"\n")); err != nil {
		return "", "", nil, err
	}
	return token, file, func() {
		// Another serve of this address, started since, has written its own.
		if data, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(data)) == token {
			os.Remove(file)
		}
	}, nil
}

// tokenFile is where the token of a server at addr is kept: in luatool's directory
// of $XDG_RUNTIME_DIR (a directory of the user's that logging out empties), else of
// $XDG_STATE_HOME, else of ~/.local/state; the directory is made private (0700) or,
// when it belongs to another user, refused.
func tokenFile(addr net.Addr) (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = os.Getenv("XDG_STATE_HOME")
	}
	if base == "" {
		if home() == "" {
			return "", errors.New("no directory for the token file: set XDG_RUNTIME_DIR, XDG_STATE_HOME or HOME, or give --tokens FILE")
		}
		base = filepath.Join(home(), ".local", "state")
	}
	dir := filepath.Join(base, "luatool")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("the directory of the token file: %w", err)
	}
	if err := makePrivateDir(dir); err != nil {
		return "", err
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "", err
	}
	name := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' {
			return r
		}
		return '_'
	}, host)
	return filepath.Join(dir, "http-"+name+"-"+port+".token"), nil
}

// writePrivate writes a file only its owner may read: mode 0600, set again in case
// the file was there with another. Its directory is private (tokenFile), so nobody
// else can put a link or a file of theirs in its place.
func writePrivate(path string, data []byte) error {
	err := os.WriteFile(path, data, 0o600)
	if err == nil {
		err = os.Chmod(path, 0o600)
	}
	if err != nil {
		return fmt.Errorf("writing the token file: %w", err)
	}
	return nil
}
