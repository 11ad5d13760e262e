package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ErrShuttingDown is the cause of the tool calls Shutdown ends when its grace is
// over, and what refuses the calls that arrive once it has begun. The model is told
// of a call it ended in its ModelText: not that the user interrupted it.
var ErrShuttingDown error = shuttingDown{}

// shuttingDown is ErrShuttingDown's type.
type shuttingDown struct{}

func (shuttingDown) Error() string { return "the server is shutting down" }

// ModelText is what the model is told of a call the shutdown ended.
func (shuttingDown) ModelText() string {
	return "The server running this tool shut down before the call ended, and stopped it: it may have done part of its work. Check what it did before calling it again."
}

// running counts the tool calls in flight, over every transport, so that Shutdown
// can let them finish, refuse new ones, and end those still running at the end of
// its grace. Make it with newRunning.
type running struct {
	// ctx ends every call in flight when Shutdown's grace is over (end).
	ctx context.Context
	end context.CancelCauseFunc

	mu       sync.Mutex
	n        int
	draining bool
	// idle is closed when n falls to 0 while draining.
	idle chan struct{}
}

func newRunning() *running {
	r := &running{idle: make(chan struct{})}
	r.ctx, r.end = context.WithCancelCause(context.Background())
	return r
}

// enter admits a call: it returns the call's context, which also ends when Shutdown
// ends the calls, and the function to call when the call is over. Once Shutdown has
// begun it refuses the call with a JSON-RPC error saying so.
func (r *running) enter(ctx context.Context) (context.Context, func(), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.draining {
		// Busy, as a call past its bound is: a client may retry at another instance.
		return nil, nil, &jsonrpc.Error{Code: codeBusy, Message: ErrShuttingDown.Error() + ": call again once it is back, or at another instance"}
	}
	r.n++
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(r.ctx, func() { cancel(context.Cause(r.ctx)) })
	return ctx, func() {
		stop()
		cancel(nil)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.n--; r.n == 0 && r.draining {
			close(r.idle)
		}
	}, nil
}

// Shutdown stops the server taking tool calls, over every transport: from now on a
// call is answered a JSON-RPC error saying so. It waits for the calls in flight to
// finish, each answered and logged as usual. When ctx ends first, it ends those
// still running, with ErrShuttingDown as their context's cause (each is answered
// and logged as cancelled, with that reason), waits for them to return, and
// returns how many it ended. The transports are the caller's to close after.
func (s *Server) Shutdown(ctx context.Context) (ended int) {
	r := s.running
	r.mu.Lock()
	if !r.draining {
		r.draining = true
		if r.n == 0 {
			close(r.idle)
		}
	}
	r.mu.Unlock()
	select {
	case <-r.idle:
		return 0
	case <-ctx.Done():
	}
	r.mu.Lock()
	ended = r.n
	r.mu.Unlock()
	r.end(ErrShuttingDown)
	<-r.idle
	return ended
}

// InFlight returns how many tool calls are running.
func (s *Server) InFlight() int {
	s.running.mu.Lock()
	defer s.running.mu.Unlock()
	return s.running.n
}
