package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// hooksFor returns the hooks of an event that match tool, in order (Options.Hooks,
// then the hook files of reg), each Name once.
func (e *Engine) hooksFor(reg *Registry, event HookEvent, tool string) []Hook {
	if len(e.opts.Hooks)+len(reg.hooks) == 0 {
		return nil
	}
	var out []Hook
	seen := map[string]bool{}
	for _, list := range [][]Hook{e.opts.Hooks, reg.hooks} {
		for _, h := range list {
			if h.Event() != event || seen[h.Name()] {
				continue
			}
			f, err := CompileMatcher(h.Matcher())
			if err != nil {
				e.logHookOnce(h, err)
				continue
			}
			if f(tool) {
				seen[h.Name()] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// checkHooks refuses hooks of an event luatool does not run, and matchers that do not
// compile: such a hook would never run, and its author believes it does.
func checkHooks(hooks []Hook) error {
	var errs []error
	for _, h := range hooks {
		if !slices.Contains(HookEvents, h.Event()) {
			errs = append(errs, fmt.Errorf("hook %s: event %q is not one luatool runs (%v)", h.Name(), h.Event(), HookEvents))
		}
		if _, err := CompileMatcher(h.Matcher()); err != nil {
			errs = append(errs, fmt.Errorf("hook %s: %w", h.Name(), err))
		}
	}
	return errors.Join(errs...)
}

// runHooks runs hooks at once, each under its own timeout cut to what is left of
// ctx, the call's deadline, and merges their decisions in order. A hook that fails,
// panics or outlives its time gives none, and is logged. It returns when every hook
// has answered or been given up on, so a Hook that ignores its context cannot hold
// the call past its timeout, nor past the call's deadline: hooks count inside the
// call's time. Once ctx has ended, no hook runs (each is logged as not run).
func (e *Engine) runHooks(ctx context.Context, hooks []Hook, in *HookInput) HookDecision {
	if len(hooks) == 0 {
		return HookDecision{}
	}
	if ctx.Err() != nil {
		for _, h := range hooks {
			e.logHook(h, in, fmt.Errorf("not run: the call's time is up (%w)", ctx.Err()))
		}
		return HookDecision{}
	}
	deadline, bounded := ctx.Deadline()
	ds := make([]HookDecision, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Go(func() {
			// Each hook gets its own copy: one must not change what another reads.
			own := *in
			own.ToolInput, own.ToolResponse = cloneJSON(in.ToolInput), cloneValue(in.ToolResponse)
			timeout := h.Timeout()
			if timeout <= 0 {
				timeout = DefaultHookTimeout
			}
			within := fmt.Sprintf("within %s", timeout)
			if left := time.Until(deadline); bounded && left < timeout {
				timeout, within = left, fmt.Sprintf("within the %s left of the call's time", left.Round(time.Millisecond))
			}
			hctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			type answer struct {
				d   HookDecision
				err error
			}
			done := make(chan answer, 1)
			go func() {
				defer func() {
					if p := recover(); p != nil {
						done <- answer{err: fmt.Errorf("panic: %v", p)}
					}
				}()
				d, err := h.Run(hctx, &own)
				done <- answer{d, err}
			}()
			select {
			case a := <-done:
				if a.err != nil && hctx.Err() != nil {
					a.err = fmt.Errorf("no answer %s: %w", within, a.err)
				}
				if a.err != nil {
					e.logHook(h, in, a.err)
					return
				}
				ds[i] = a.d
				if a.d.Block {
					ds[i].blocks = []hookBlock{{by: h.Name(), reason: a.d.Reason}}
				}
			case <-hctx.Done():
				e.logHook(h, in, fmt.Errorf("no answer %s: %w", within, hctx.Err()))
			}
		})
	}
	wg.Wait()
	return MergeHookDecisions(ds...)
}

// logHook logs a hook that gave no decision.
func (e *Engine) logHook(h Hook, in *HookInput, err error) {
	e.opts.Logger.Warn(fmt.Sprintf("%s hook %q failed, so the call of %s goes on without its decision: %v", h.Event(), h.Name(), in.ToolName, err),
		"hook", h.Name(), "event", string(h.Event()), "tool", in.ToolName, "tool_use_id", in.ToolUseID, "err", err.Error())
}

// hookLogged records the hooks whose matcher was reported, so that it is reported
// once, not at every call.
var hookLogged sync.Map

// logHookOnce logs a problem of a hook itself (its matcher) the first time it is met.
func (e *Engine) logHookOnce(h Hook, err error) {
	if _, dup := hookLogged.LoadOrStore(string(h.Event())+"\x00"+h.Name()+"\x00"+err.Error(), true); dup {
		return
	}
	e.opts.Logger.Warn(fmt.Sprintf("%s hook %q never runs: %v", h.Event(), h.Name(), err), "hook", h.Name(), "event", string(h.Event()), "err", err.Error())
}

// Texts the model sees of hooks, in Claude Code's words (recorded from 2.1.328 in
// tests/testdata/hooks/cc-hook-texts.json); the ask and the middleware's are luatool's.
func hookDenyText(tool, reason string) string {
	if reason == "" {
		reason = "the hook denied the call and gave no reason" // luatool's words
	}
	return fmt.Sprintf("%s:%s hook error: %s", PreToolUse, tool, reason)
}

func hookAskText(tool, reason string) string {
	if reason == "" {
		return fmt.Sprintf("A %s:%s hook asks before the call runs.", PreToolUse, tool)
	}
	return fmt.Sprintf("A %s:%s hook asks before the call runs: %s", PreToolUse, tool, reason)
}

// blockText words one PostToolUse block: by names the hook, "" for a middleware's.
func (b hookBlock) text(tool string) string {
	if b.by == "" {
		return fmt.Sprintf("%s:%s hook blocking error: %s", PostToolUse, tool, b.reason)
	}
	return fmt.Sprintf("%s:%s hook blocking error from command: \"%s\": %s", PostToolUse, tool, b.by, b.reason)
}

// hookAdditions are the texts hooks add after a result, for the model.
type hookAdditions []string

func (a *hookAdditions) add(s string) {
	if strings.TrimSpace(s) != "" {
		*a = append(*a, s)
	}
}

// context adds the additional context of hooks of event, when there is some.
func (a *hookAdditions) context(event HookEvent, tool, text string) {
	if strings.TrimSpace(text) != "" {
		a.add(fmt.Sprintf("%s:%s hook additional context: %s", event, tool, text))
	}
}

// appendTo adds the texts to a result's content, each a text block of its own.
func (a hookAdditions) appendTo(c Content) Content {
	for _, s := range a {
		c = append(c, ContentBlock{Type: "text", Text: s})
	}
	return c
}

// onError adds the texts to the content of a failed result, and returns it.
func (a hookAdditions) onError(r *Result) *Result {
	r.Block.Content = a.appendTo(r.Block.Content)
	return r
}

// errNoNext is the reason of a call whose middleware neither called next nor denied.
var errNoNext = errors.New("a middleware returned without passing the call on")

// cloneJSON copies a JSON object deeply.
func cloneJSON(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	v, _ := cloneValue(m).(map[string]any)
	return v
}

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = cloneValue(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cloneValue(x)
		}
		return out
	}
	return v
}
