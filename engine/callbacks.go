package engine

import (
	"context"
	"fmt"

	"github.com/luatool/luatool/engine/client"
)

// Callbacks are per-call versions of Options.OnProgress and Options.CanUseTool,
// carried by a context in the way of net/http/httptrace: a host serving several
// clients (an MCP server) routes each call's progress and permission asks to the
// client that made the call. A nil field leaves the engine's option in force. They
// are the host's callbacks, not hooks: hooks are the user's code that runs around
// each call (see Options.Hooks). Client, when set, is the client of the call: the
// call's tool logs to it, samples and elicits through it (CallContext.Client)
// instead of the host's own (Options.Client).
type Callbacks struct {
	OnProgress func(ProgressEvent)
	CanUseTool CanUseToolFunc
	Client     client.Client
}

type callbacksKey struct{}

// WithCallbacks returns a context whose calls (Call, Run) use the callbacks given.
func WithCallbacks(ctx context.Context, c Callbacks) context.Context {
	return context.WithValue(ctx, callbacksKey{}, c)
}

// callbacks returns the callbacks in force for a call made with ctx.
func (e *Engine) callbacks(ctx context.Context) Callbacks {
	c, _ := ctx.Value(callbacksKey{}).(Callbacks)
	if c.OnProgress == nil {
		c.OnProgress = e.opts.OnProgress
	}
	if c.CanUseTool == nil {
		c.CanUseTool = e.opts.CanUseTool
	}
	if c.Client == nil {
		c.Client = e.opts.Client
	}
	if c.Client == nil {
		c.Client = client.None{}
	}
	return c
}

// summarizeMaxTokens bounds a summary: a few sentences about a page.
const summarizeMaxTokens = 1024

// Summarize answers prompt about content with the model of the call's client (one
// use of CallContext.Client: a sampling request of the content and the prompt), as
// WebFetch asks about the page it fetched. Its errors are the client's
// (client.ErrUnavailable when there is no model), or one saying the model answered
// something other than text.
func (cc *CallContext) Summarize(ctx context.Context, content, prompt string) (string, error) {
	c := cc.Client
	if c == nil {
		c = client.None{}
	}
	req := &client.SamplingRequest{
		SystemPrompt: "Answer the prompt about the content given, in a few sentences, from the content only.",
		Messages: []client.Message{{Role: "user", Content: client.Content{Type: "text",
			Text: "<content>\n" + content + "\n</content>\n\n" + prompt}}},
		MaxTokens: summarizeMaxTokens,
	}
	res, err := c.Sample(ctx, req)
	if err != nil {
		return "", err
	}
	if res.Content.Type != "text" {
		return "", fmt.Errorf("the model answered %s content, not text", res.Content.Type)
	}
	return res.Content.Text, nil
}
