package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine/client"
)

// levels are the log levels principals set with logging/setLevel, kept for
// stateless HTTP, where each POST stands alone: a level set in one POST applies to
// the calls of the principal's later POSTs. Over a session (stdio, HTTP with
// sessions) the session keeps its own, and a client of 2026-07-28 or later sends
// it with each request.
type levels struct {
	mu sync.Mutex
	by map[string]mcp.LoggingLevel // principal name -> level
}

// statelessDefault is the level the SDK gives the session of a stateless POST.
const statelessDefault = client.Info

func (l *levels) set(principal string, level mcp.LoggingLevel) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]mcp.LoggingLevel{}
	}
	l.by[principal] = level
}

func (l *levels) get(principal string) (mcp.LoggingLevel, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	level, ok := l.by[principal]
	return level, ok
}

// of returns the level in force for a principal's calls without a session.
func (l *levels) of(principal string) client.Level {
	if level, ok := l.get(principal); ok {
		return client.Level(level)
	}
	return statelessDefault
}

// logLevels is the receiving middleware that keeps the level each principal sets,
// and gives a stateless POST's session the level of its principal.
func (s *Server) logLevels(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		switch method {
		case "logging/setLevel":
			res, err := next(ctx, method, req)
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && err == nil {
				s.levels.set(principal(req.GetExtra(), ss).Name, p.Level)
			}
			return res, err
		case "tools/call":
			if !sessionless(ss) {
				break
			}
			if level, ok := s.levels.get(principal(req.GetExtra(), ss).Name); ok {
				set := &mcp.ServerRequest[*mcp.SetLoggingLevelParams]{Session: ss, Params: &mcp.SetLoggingLevelParams{Level: level}}
				if _, err := next(ctx, "logging/setLevel", set); err != nil {
					s.log.Debug("log level", "error", err)
				}
			}
		}
		return next(ctx, method, req)
	}
}
