package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/session"
	"github.com/luatool/luatool/session/filestate"
)

// A Principal is who a call runs for, and in which of their sessions. It picks the
// session whose state the call sees and changes: the tools' state (ctx.state), what
// the model was shown of each file (readFileState), the rules "allow always" answers
// added, and the deferred tools discovered; no principal sees another's. Its profile
// adds to the engine's permissions. A call whose context carries no principal
// (WithPrincipal) runs for the local user, as every call of the CLI does.
type Principal struct {
	// Name identifies the principal: over HTTP, the authenticated caller. "" is the
	// local user.
	Name string
	// Session is the client's session id where it keeps one (MCP's Mcp-Session-Id):
	// each gets state of its own. "" is the principal's one session.
	Session string
	// Profile adds rules, and a mode, to the engine's for this principal; nil adds
	// none.
	Profile *Profile
}

type principalKey struct{}

// WithPrincipal returns a context whose calls (Call, Run, Prepare, Definitions) run
// for p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalOf returns the principal of calls made with ctx: the local user (the zero
// Principal) when none was set. Loaders share what calls compete for (the Lua
// loader, its slots) by it.
func PrincipalOf(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}

// A Profile is a principal's permission settings, as NewProfile compiled them: its
// rules join the engine's (a deny of either wins; an allow of either counts), its
// mode, when set, replaces the engine's, and a tool its rules deny by name is hidden
// from it (absent from Definitions, "No such tool available" when called), as a
// bare deny hides a tool in Claude Code.
type Profile struct {
	rules rules.Set
	mode  rules.Mode
	// seen is the last snapshot the profile was asked about, view that snapshot
	// without the tools the profile hides.
	mu         sync.Mutex
	seen, view *Registry
}

// NewProfile compiles the permission settings of a principal (read from a settings
// file by package engine/settings, say). A rule that does not parse, or a mode that
// is not one, is an error naming where it came from.
func (e *Engine) NewProfile(s rules.Settings) (*Profile, error) {
	rs, err := rules.Parse(s, e.opts.Home)
	if err != nil {
		return nil, err
	}
	mode := s.Mode
	if mode != "" {
		if _, err := rules.ParseMode(string(mode)); err != nil {
			return nil, fmt.Errorf("profile: %w", err)
		}
	}
	return &Profile{rules: rs, mode: mode}, nil
}

// registry returns the snapshot r as the profile's principal sees it: without the
// tools the profile's rules deny by name. A nil profile sees r.
func (p *Profile) registry(r *Registry) *Registry {
	if p == nil || !p.rules.HasDeny() {
		return r
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen != r {
		p.seen, p.view = r, r.without(p.rules.DeniesTool)
	}
	return p.view
}

// registryFor returns the current snapshot as the principal of ctx sees it.
func (e *Engine) registryFor(ctx context.Context) *Registry {
	return PrincipalOf(ctx).Profile.registry(e.Registry())
}

// sessionOf is the session of a principal: where its calls' state lives.
type sessionOf struct {
	e   *Engine
	key string
}

// sessionFor returns the session of the principal of ctx.
func (e *Engine) sessionFor(ctx context.Context) sessionOf {
	p := PrincipalOf(ctx)
	return sessionOf{e: e, key: session.Key(p.Name, p.Session)}
}

// State returns the tools' state (ctx.state) of the session of ctx's principal, for
// a host that seeds or reads it.
func (e *Engine) State(ctx context.Context) *State {
	s := e.sessionFor(ctx).state(ctx)
	return &s
}

// Files returns the readFileState of the session of ctx's principal.
func (e *Engine) Files(ctx context.Context) filestate.Store { return e.sessionFor(ctx).files(ctx) }

func (s sessionOf) state(ctx context.Context) State {
	return State{ctx: ctx, store: s.e.opts.Sessions, session: s.key}
}

func (s sessionOf) files(ctx context.Context) sessionFiles {
	return sessionFiles{ctx: ctx, store: s.e.opts.Sessions, session: s.key, log: s.e.opts.Logger}
}

// rules returns the rules "allow always" answers added in the session. A store that
// fails is an error: the caller must not take it for "none".
func (s sessionOf) rules(ctx context.Context) ([]string, error) {
	all, err := s.e.opts.Sessions.List(ctx, s.key, session.Rules)
	if err != nil {
		s.e.opts.Logger.Warn("the session store failed: the rules added by \"always\" answers cannot be checked", "err", err)
		return nil, err
	}
	if len(all) == 0 {
		return nil, nil // the common case, without the iterator and the slice
	}
	return slices.Sorted(maps.Keys(all)), nil
}

// addRules records rules of an "allow always" answer.
func (s sessionOf) addRules(ctx context.Context, rules []string) {
	for _, r := range rules {
		if err := s.e.opts.Sessions.Put(ctx, s.key, session.Rules, r, []byte("true")); err != nil {
			s.e.opts.Logger.Warn("the session store failed: an \"always\" answer is not kept", "rule", r, "err", err)
		}
	}
}

// discover marks tools discovered in the session.
func (s sessionOf) discover(ctx context.Context, names ...string) {
	for _, n := range names {
		if err := s.e.opts.Sessions.Put(ctx, s.key, session.Discovered, n, []byte("true")); err != nil {
			s.e.opts.Logger.Warn("the session store failed: a discovered tool is not kept", "tool", n, "err", err)
		}
	}
}

// discovered returns the tools discovered in the session.
func (s sessionOf) discovered(ctx context.Context) map[string]bool {
	all, err := s.e.opts.Sessions.List(ctx, s.key, session.Discovered)
	if err != nil {
		s.e.opts.Logger.Warn("the session store failed: the discovered tools are not known for this call", "err", err)
	}
	out := make(map[string]bool, len(all))
	for n := range all {
		out[n] = true
	}
	return out
}

// State is a session's tools' state: JSON values by key (ctx.state in Lua), kept in
// the engine's session store for the principal of a call. A State is made for one
// call (CallContext.State) or by Engine.State; it is safe for concurrent use.
type State struct {
	ctx     context.Context
	store   session.Store
	session string
	fault   *storeFault // the call's, when made for one
}

// Get returns the value stored under key. The error is the session store's.
func (s *State) Get(key string) (v any, ok bool, err error) {
	b, err := s.store.Get(s.ctx, s.session, session.State, key)
	if err != nil || b == nil {
		return nil, false, s.fault.note(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, false, fmt.Errorf("the session store holds a value of %q that is not JSON: %w", key, err)
	}
	return v, true, nil
}

// Set stores v, a JSON value, under key; a nil v deletes the key.
func (s *State) Set(key string, v any) error {
	if v == nil {
		return s.fault.note(s.store.Put(s.ctx, s.session, session.State, key, nil))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("state value of %q: %w", key, err)
	}
	return s.fault.note(s.store.Put(s.ctx, s.session, session.State, key, b))
}

// Update changes the value under key atomically (session.Update): f gets the value
// (nil, false when there is none) and returns the new one (nil deletes the key). f may
// run more than once, each time on the latest value, so it must do nothing but
// compute; Update returns the value it stored. The error is f's or the store's.
func (s *State) Update(key string, f func(old any, ok bool) (any, error)) (any, error) {
	var v any
	_, err := session.Update(s.ctx, s.store, s.session, session.State, key, func(old []byte) ([]byte, error) {
		var cur any
		if old != nil {
			if err := json.Unmarshal(old, &cur); err != nil {
				return nil, fmt.Errorf("the session store holds a value of %q that is not JSON: %w", key, err)
			}
		}
		var err error
		if v, err = f(cur, old != nil); err != nil || v == nil {
			return nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("state value of %q: %w", key, err)
		}
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// sessionFiles is a session's readFileState in the session store. A store that
// fails reads as "not read" (so a write is refused, fail closed) and is logged; one
// that is unavailable is noted in the call's fault, which then words the call's
// outcome (see storeFault).
type sessionFiles struct {
	ctx     context.Context
	store   session.Store
	session string
	log     *slog.Logger
	fault   *storeFault // the call's, when made for one
}

func (f sessionFiles) Get(path string) (filestate.Entry, bool) {
	b, err := f.store.Get(f.ctx, f.session, session.Files, path)
	var e filestate.Entry
	if err == nil && b != nil {
		err = json.Unmarshal(b, &e)
	}
	if err != nil {
		f.log.Warn("the session store failed: the file counts as not read", "path", path, "err", f.fault.note(err))
		return filestate.Entry{}, false
	}
	return e, b != nil
}

func (f sessionFiles) Set(path string, e filestate.Entry) {
	b, _ := json.Marshal(e) // an Entry always encodes
	if err := f.store.Put(f.ctx, f.session, session.Files, path, b); err != nil {
		f.log.Warn("the session store failed: what the model was shown of a file is not kept", "path", path, "err", f.fault.note(err))
	}
}

func (f sessionFiles) Delete(path string) {
	if err := f.store.Put(f.ctx, f.session, session.Files, path, nil); err != nil {
		f.log.Warn("the session store failed: a file's record is not forgotten", "path", path, "err", f.fault.note(err))
	}
}
