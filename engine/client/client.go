// Package client holds what a tool's call may ask of the client that made it: to
// log a message, to sample the client's model, to elicit input from its user. The
// engine carries a Client per call (engine.Callbacks) and per host
// (engine.Options); the MCP server implements it with the protocol's requests,
// the command line with the terminal, luatest with a test's stubs. The requests
// and results are MCP's, checked here once for every host: a request a tool makes
// is checked before it is sent, and an answer a client gives is checked before the
// tool sees it, so that a malformed answer is an error the tool can handle
// (ErrMalformed), never a value it trusts.
//
// The package imports neither the engine nor Lua.
package client

import (
	"context"
	"errors"
	"fmt"
)

// A Client is what a call asks of the client that made it. Its methods are safe
// for concurrent use and block until answered or ctx ends.
type Client interface {
	// Log sends a message to the client's log, if the client wants messages of its
	// level. It never fails the call: a message that cannot be sent is dropped.
	Log(ctx context.Context, m LogMessage)
	// Sample asks the client's model; the request has been checked (Check).
	Sample(ctx context.Context, r *SamplingRequest) (*SamplingResult, error)
	// Elicit asks the client's user; the request has been checked (Check).
	Elicit(ctx context.Context, r *ElicitRequest) (*ElicitResult, error)
}

// The errors a Client returns, wrapped with a text saying why, that callers tell
// apart with errors.Is.
var (
	// ErrUnavailable: the client (or host) does not offer the feature.
	ErrUnavailable = errors.New("unavailable")
	// ErrDeclined: the client's user refused the request.
	ErrDeclined = errors.New("declined")
	// ErrMalformed: the request or the answer breaks the protocol's shape.
	ErrMalformed = errors.New("malformed")
)

// Unavailable returns an error wrapping ErrUnavailable with why.
func Unavailable(why string) error { return fmt.Errorf("%w: %s", ErrUnavailable, why) }

// Malformed returns an error wrapping ErrMalformed with why.
func Malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// Kind names the kind of a Client's error for a tool: "unavailable", "declined",
// "malformed", or "failed" for every other error.
func Kind(err error) string {
	switch {
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	case errors.Is(err, ErrDeclined):
		return "declined"
	case errors.Is(err, ErrMalformed):
		return "malformed"
	default:
		return "failed"
	}
}

// None is a Client that offers nothing: it drops messages, and samples and
// elicits nothing, saying why.
type None struct{ Why string }

// Log drops m.
func (None) Log(context.Context, LogMessage) {}

// Sample answers ErrUnavailable.
func (n None) Sample(context.Context, *SamplingRequest) (*SamplingResult, error) {
	return nil, Unavailable(n.why("sample a model"))
}

// Elicit answers ErrUnavailable.
func (n None) Elicit(context.Context, *ElicitRequest) (*ElicitResult, error) {
	return nil, Unavailable(n.why("ask its user"))
}

func (n None) why(what string) string {
	if n.Why != "" {
		return n.Why
	}
	return "the host offers no way to " + what
}
