package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/luatool/luatool/internal/spell"
)

// envPrefix begins the name of every variable that stands for a flag of serve.
const envPrefix = "LUATOOL_"

// redisPasswordVar is the variable holding the password of the --state store. It
// stands for no flag: a password on the command line would show in ps.
const redisPasswordVar = envPrefix + "REDIS_PASSWORD"

// envName is the variable that stands for the flag name: LUATOOL_ and the name in
// upper case, each - an _ (--shutdown-grace is LUATOOL_SHUTDOWN_GRACE).
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// serveFlagNames are the flags that serve takes from the environment: those its
// help lists, and every flag of serveConfig, so that a flag added there has its
// variable without more code.
func serveFlagNames() []string {
	names := slices.Clone(commands["serve"].flags)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	new(serveConfig).flags(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	})
	return names
}

// flagsFromEnv gives each flag of names that the command line left unset the
// value of its variable (see envName), so that flags beat the environment and the
// environment beats the defaults. An empty variable counts as unset. A repeatable
// flag takes one value a line; any other flag one line. A value the flag refuses is
// an error naming the variable. It returns warnings about variables that name no
// flag but come close to one, most likely misspelt.
func flagsFromEnv(fs *flag.FlagSet, names []string, environ []string) (warnings []string, err error) {
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		onCommandLine[f.Name] = true
		if to, old := renamedFlags[f.Name]; old {
			onCommandLine[to] = true
		}
	})
	vars := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, envPrefix) {
			vars[k] = v
		}
	}
	// The store's password, and the switch of the standard set (standardSource).
	known := map[string]bool{redisPasswordVar: true, envPrefix + "ENABLE_TASKS": true}
	var errs []error
	for _, name := range names {
		v := envName(name)
		known[v] = true
		value := vars[v]
		if value == "" || onCommandLine[name] {
			continue
		}
		f := fs.Lookup(name)
		values := strings.Split(strings.TrimRight(value, "\n"), "\n")
		if len(values) > 1 && !strings.Contains(f.Usage, "repeatable") {
			errs = append(errs, fmt.Errorf("%s: --%s takes one value, and the variable holds %d lines", v, name, len(values)))
			continue
		}
		for _, one := range values {
			if err := fs.Set(name, one); err != nil {
				errs = append(errs, fmt.Errorf("%s (for --%s): %w", v, name, explainSetError(f, one, err)))
				break
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	candidates := make([]string, 0, len(known))
	for k := range known {
		candidates = append(candidates, k)
	}
	slices.Sort(candidates)
	for k := range vars {
		if known[k] {
			continue
		}
		if s := spell.Suggest(k, candidates); s != "" {
			warnings = append(warnings, fmt.Sprintf("%s names no flag of serve; did you mean %s?", k, s))
		}
	}
	slices.Sort(warnings)
	return warnings, nil
}

// explainSetError words the flag package's own errors for its typed flags ("parse
// error", "value out of range"), which say neither the value nor what was wanted.
// The errors of flags made with flag.Func say both already.
func explainSetError(f *flag.Flag, value string, err error) error {
	if msg := err.Error(); msg != "parse error" && msg != "value out of range" {
		return err
	}
	want, _ := flag.UnquoteUsage(f)
	if want == "" {
		want = "boolean (true or false)"
	}
	return fmt.Errorf("%q is not a valid %s", value, want)
}

// stateURL is the URL of --state with the store's password, when one is given
// apart from it: by --redis-password-file or LUATOOL_REDIS_PASSWORD, never both,
// nor beside a password in the URL. Giving it apart keeps it out of ps. The
// variable alone, without --state, is no error: it may be set for every command.
func (a *app) stateURL(lookupEnv func(string) (string, bool)) (string, error) {
	var password, from string
	if p, ok := lookupEnv(redisPasswordVar); ok && p != "" {
		password, from = p, redisPasswordVar
	}
	if file := a.cfg.serve.redisPasswordFile; file != "" {
		if from != "" {
			return "", fmt.Errorf("--redis-password-file and %s both give the store's password: give one", redisPasswordVar)
		}
		p, err := readSecretFile(file)
		if err != nil {
			return "", fmt.Errorf("--redis-password-file: %w", err)
		}
		password, from = p, "--redis-password-file"
	}
	switch {
	case from == "":
		return a.cfg.state, nil
	case a.cfg.state == "" && from == redisPasswordVar:
		return "", nil // the variable may be set for every command of a container
	case a.cfg.state == "":
		return "", fmt.Errorf("%s gives a password, but there is no --state store to give it to", from)
	}
	u, err := url.Parse(a.cfg.state)
	if err != nil {
		return "", errors.New("--state is not a URL") // the error would repeat it, password and all
	}
	if _, has := u.User.Password(); has {
		return "", fmt.Errorf("--state holds a password and %s gives another: give it one way", from)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String(), nil
}

// readSecretFile reads a one-line secret from a file only its owner may read
// (mode 0600 or narrower), without the line's end. The mode is the open file's, so
// that it cannot change between the check and the read. Windows has no such modes.
func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return "", fmt.Errorf("%s: mode %04o lets other users read the password; chmod 600 %s", path, perm, shellWord(path))
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", err
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" || strings.ContainsAny(s, "\r\n") {
		return "", fmt.Errorf("%s: want the password alone on one line", path)
	}
	return s, nil
}
