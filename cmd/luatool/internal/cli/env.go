package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/internal/spell"
)

// toolEnv builds the values tools read with env.get: those of the settings files
// (fromFiles, merged), then one for each --env NAME, passed through from luatool's
// own environment to every tool and taken for a secret. --env takes a name only: a
// value written on the command line would show in ps and in the shell's history,
// so --env NAME=value is refused with the way to give it instead.
func (a *app) toolEnv(fromFiles []env.Var) (*env.Set, error) {
	vars := slices.Clone(fromFiles)
	var errs []error
	for _, name := range a.cfg.env {
		if n, _, hasValue := strings.Cut(name, "="); hasValue {
			errs = append(errs, fmt.Errorf("--env %s: --env takes a name, not a value (a value on the command line shows in ps and the shell's history): set it in the environment, %s=... luatool --env %s ..., or in a settings file's \"env\"", n+"=...", n, n))
			continue
		}
		if err := env.Check(env.Var{Name: name}); err != nil {
			errs = append(errs, fmt.Errorf("--env: %w", err))
			continue
		}
		value, ok := os.LookupEnv(name)
		if !ok {
			errs = append(errs, fmt.Errorf("--env %s: %s is not set in luatool's environment", name, name))
			continue
		}
		v := env.Var{Name: name, Value: value, Secret: true, Source: "--env " + name}
		if err := env.Check(v); err != nil {
			errs = append(errs, fmt.Errorf("--env %s: %w", name, err))
			continue
		}
		vars = append(vars, v)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return env.New(vars)
}

// envList renders the values a settings file hands tools, for a person deciding
// whether to trust it: a value that is not secret as it is (it may point a tool
// somewhere), a secret by its name only, and the tools each is for.
func envList(vars []env.Var) string {
	parts := make([]string, len(vars))
	for i, v := range vars {
		parts[i] = v.Name + "=" + strconv.Quote(v.Value)
		if v.Secret {
			parts[i] = v.Name + " (secret)"
		}
		if len(v.Tools) > 0 {
			parts[i] += " for " + strings.Join(v.Tools, ", ")
		}
	}
	return strings.Join(parts, "; ")
}

// warnEnvTools warns about values given to tools by a name that no tool on offer
// has: the value reaches no tool, which is most likely a misspelt name.
func (a *app) warnEnvTools(env *env.Set, reg *engine.Registry) {
	names := reg.Names()
	for _, v := range env.Vars() {
		for _, t := range v.Tools {
			if slices.Contains(names, t) {
				continue
			}
			msg := fmt.Sprintf("%s: env %s is given to the tool %s, which no tool on offer is named", v.Source, v.Name, t)
			if s := spell.Suggest(t, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
			a.display().line("luatool: warning: " + msg)
		}
	}
}
