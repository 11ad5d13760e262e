package engine

import (
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
)

// A policy is what decides what calls may do: the mode, the rules, the hooks of
// Options.Hooks and the host's protected paths. The engine holds one at a time and
// SetPolicy swaps it whole; a turn takes the one current when it starts and keeps
// it, so that a call never sees half of an old policy and half of a new one.
type policy struct {
	mode      rules.Mode
	rules     rules.Set
	hooks     []hooks.Hook
	protected []rules.ProtectedPath
}

// newPolicy checks and builds a policy: mode (ModeDefault when empty), the rules
// of perms (whose Mode counts when mode is empty), hks and protected, each checked
// as New checks its options.
func newPolicy(mode rules.Mode, perms rules.Settings, home string, hks []hooks.Hook, protected []rules.ProtectedPath) (*policy, error) {
	if mode == "" {
		mode = perms.Mode
	}
	if mode == "" {
		mode = rules.ModeDefault
	}
	if _, err := rules.ParseMode(string(mode)); err != nil {
		return nil, err
	}
	rs, err := rules.Parse(perms, home)
	if err != nil {
		return nil, err
	}
	if err := hooks.Check(hks); err != nil {
		return nil, err
	}
	if err := checkProtected(protected); err != nil {
		return nil, err
	}
	return &policy{mode: mode, rules: rs, hooks: hks, protected: protected}, nil
}

// SetPolicy replaces what decides what calls may do, as New took it from Options:
// the permission rules and mode of perms (ModeDefault when perms.Mode is empty),
// the hooks (as Options.Hooks) and the protected paths (as Options.Protected). A
// rule, mode, hook or path that New would refuse is an error, and then nothing
// changes. Turns already running keep the policy they started with; the tool list
// is built again, so that a tool a new deny rule names is hidden (and one no rule
// denies any more is shown), and the subscribers hear of each tool that comes or
// goes. Options keeps returning the options New was given.
func (e *Engine) SetPolicy(perms rules.Settings, hks []hooks.Hook, protected []rules.ProtectedPath) error {
	p, err := newPolicy("", perms, e.opts.Home, hks, protected)
	if err != nil {
		return err
	}
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	e.policy.Store(p)
	e.swapLocked(nil, nil)
	return nil
}
