package hooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// Select returns the hooks of lists, in order, that run at event for tool: those
// of the event whose matcher matches tool, each Name once. A hook whose matcher does
// not compile is left out, and logged to log the first time it is met.
func Select(log *slog.Logger, event Event, tool string, lists ...[]Hook) []Hook {
	var out []Hook
	seen := map[string]bool{}
	for _, list := range lists {
		for _, h := range list {
			if h.Event() != event || seen[h.Name()] {
				continue
			}
			f, err := CompileMatcher(h.Matcher())
			if err != nil {
				logHookOnce(log, h, err)
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

// Check refuses hooks of an event luatool does not run, and matchers that do not
// compile: such a hook would never run, and its author believes it does.
func Check(hooks []Hook) error {
	var errs []error
	for _, h := range hooks {
		if !slices.Contains(Events, h.Event()) {
			errs = append(errs, fmt.Errorf("hook %s: event %q is not one luatool runs (%v)", h.Name(), h.Event(), Events))
		}
		if _, err := CompileMatcher(h.Matcher()); err != nil {
			errs = append(errs, fmt.Errorf("hook %s: %w", h.Name(), err))
		}
	}
	return errors.Join(errs...)
}

// Run runs hooks at once, each under its own timeout cut to what is left of ctx, the
// call's deadline, and merges their decisions in order. A hook that fails, panics or
// outlives its time gives none, and is logged to log. It returns when every hook has
// answered or been given up on, so a Hook that ignores its context cannot hold the
// call past its timeout, nor past the call's deadline: hooks count inside the call's
// time. Once ctx has ended, no hook runs (each is logged as not run).
func Run(ctx context.Context, hooks []Hook, in *Input, log *slog.Logger) Decision {
	if len(hooks) == 0 {
		return Decision{}
	}
	if ctx.Err() != nil {
		for _, h := range hooks {
			logHook(log, h, in, fmt.Errorf("not run: the call's time is up (%w)", ctx.Err()))
		}
		return Decision{}
	}
	deadline, bounded := ctx.Deadline()
	ds := make([]Decision, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Go(func() {
			// Each hook gets its own copy: one must not change what another reads.
			own := *in
			own.ToolInput, own.ToolResponse = jsonvalue.CloneObject(in.ToolInput), jsonvalue.Clone(in.ToolResponse)
			timeout := h.Timeout()
			if timeout <= 0 {
				timeout = DefaultTimeout
			}
			within := fmt.Sprintf("within %s", timeout)
			if left := time.Until(deadline); bounded && left < timeout {
				timeout, within = left, fmt.Sprintf("within the %s left of the call's time", left.Round(time.Millisecond))
			}
			hctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			type answer struct {
				d   Decision
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
					logHook(log, h, in, a.err)
					return
				}
				ds[i] = a.d
				if a.d.Block {
					ds[i].blocks = []block{{by: h.Name(), reason: a.d.Reason}}
				}
			case <-hctx.Done():
				logHook(log, h, in, fmt.Errorf("no answer %s: %w", within, hctx.Err()))
			}
		})
	}
	wg.Wait()
	return Merge(ds...)
}

// logHook logs a hook that gave no decision.
func logHook(log *slog.Logger, h Hook, in *Input, err error) {
	log.Warn(fmt.Sprintf("%s hook %q failed, so the call of %s goes on without its decision: %v", h.Event(), h.Name(), in.ToolName, err),
		"hook", h.Name(), "event", string(h.Event()), "tool", in.ToolName, "tool_use_id", in.ToolUseID, "err", err.Error())
}

// hookLogged records the hooks whose matcher was reported, so that it is reported
// once, not at every call.
var hookLogged sync.Map

// logHookOnce logs a problem of a hook itself (its matcher) the first time it is met.
func logHookOnce(log *slog.Logger, h Hook, err error) {
	if _, dup := hookLogged.LoadOrStore(string(h.Event())+"\x00"+h.Name()+"\x00"+err.Error(), true); dup {
		return
	}
	log.Warn(fmt.Sprintf("%s hook %q never runs: %v", h.Event(), h.Name(), err), "hook", h.Name(), "event", string(h.Event()), "err", err.Error())
}

// Texts the model sees of hooks, in Claude Code's words (recorded from 2.1.328 in
// tests/testdata/hooks/cc-hook-texts.json); the ask and the middleware's are luatool's.

// DenyText is what the model is told of a call a PreToolUse hook denied, for reason.
func DenyText(tool, reason string) string {
	if reason == "" {
		reason = "the hook denied the call and gave no reason" // luatool's words
	}
	return fmt.Sprintf("%s:%s hook error: %s", PreToolUse, tool, reason)
}

// AskText is what the person asked is told of a PreToolUse hook's ask, for reason.
func AskText(tool, reason string) string {
	if reason == "" {
		return fmt.Sprintf("A %s:%s hook asks before the call runs.", PreToolUse, tool)
	}
	return fmt.Sprintf("A %s:%s hook asks before the call runs: %s", PreToolUse, tool, reason)
}

// text words one PostToolUse block: by names the hook, "" for a middleware's.
func (b block) text(tool string) string {
	if b.by == "" {
		return fmt.Sprintf("%s:%s hook blocking error: %s", PostToolUse, tool, b.reason)
	}
	return fmt.Sprintf("%s:%s hook blocking error from command: \"%s\": %s", PostToolUse, tool, b.by, b.reason)
}

// BlockTexts are the texts the model is told of the PostToolUse blocks merged into
// d, one for each, with the hook that gave it; a block set by a middleware's own
// decision is worded as the middleware's.
func (d Decision) BlockTexts(tool string) []string {
	blocks := d.blocks
	if d.Block && len(blocks) == 0 {
		blocks = []block{{reason: d.Reason}}
	}
	texts := make([]string, len(blocks))
	for i, b := range blocks {
		texts[i] = b.text(tool)
	}
	return texts
}

// ContextText words the additional context hooks of event gave for the model;
// "" when there is none.
func ContextText(event Event, tool, text string) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return fmt.Sprintf("%s:%s hook additional context: %s", event, tool, text)
}
