package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/mcpserver"
	"github.com/luatool/luatool/engine/settings"
)

// readTokens reads the token file of --tokens: one principal a line, NAME TOKEN
// [PROFILE], fields separated by blanks; blank lines and lines starting with # are
// skipped. The tokens are passwords, so a file that users other than its owner may
// read or write is refused, as ssh refuses such a private key: a warning would be
// read after the tokens had leaked. PROFILE is a settings file, relative to the token file, compiled for eng:
// the principal's rules and mode. Principals naming the same file share one profile.
// Every problem is reported, each with file:line, and any problem fails the whole
// file: nothing is served on part of it.
func (a *app) readTokens(path string, eng *engine.Engine) (*mcpserver.Tokens, error) {
	data, err := readPrivate(path)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("--tokens: %w", err)
	}
	var (
		creds    []mcpserver.Credential
		errs     []error
		profiles = map[string]*engine.Profile{}
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
			p, ok := profiles[file]
			if !ok {
				if p, err = a.readProfile(file, eng); err != nil {
					errs = append(errs, fmt.Errorf("%s: profile %s: %w", at, fields[2], err))
				}
				profiles[file] = p
			}
			c.Profile = p
		}
		// A line whose profile failed is still checked against the others below.
		creds = append(creds, c)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", path, err))
	}
	if len(creds) == 0 && len(errs) == 0 {
		return nil, fmt.Errorf("%s: no principal: a line is NAME TOKEN [PROFILE]", path)
	}
	tokens, err := mcpserver.NewTokens(creds)
	if err != nil || len(errs) > 0 {
		return nil, errors.Join(append(errs, err)...)
	}
	return tokens, nil
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
