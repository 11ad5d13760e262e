package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/feature"
)

// Resource subscriptions: a client subscribes to the URI of a resource
// (resources/subscribe, or the resourceSubscriptions of a 2026-07-28 client's
// subscriptions/listen) and is sent notifications/resources/updated when what is
// there changes: when the resource's file is saved and reloaded (feature.ResourceUpdated,
// or feature.ResourceAdded for one that comes back), for every subscribed URI it
// serves, and when a tool reports a change (feature.ResourceChanged, Lua's
// ctx:resourceUpdated). A subscription belongs to the SDK session that made it: over
// stdio, the connection; over HTTP, the session, which over stateless HTTP is the one
// POST, so that a client of a protocol before 2026-07-28 is answered {} and never
// notified (it has no stream to be notified on); a 2026-07-28 client's subscriptions
// last as long as its listen stream. The SDK keeps who is subscribed to what and
// sends the notifications (Server.ResourceUpdated); the handlers here refuse a URI
// no resource serves (as resources/read does: a subscription to nothing would never
// be told anything) and bound what one session holds.

// maxSubscriptions is the most URIs one session may be subscribed to at once.
const maxSubscriptions = 100

// subscriptions are the URIs each session is subscribed to, for the bound and to
// find the URIs a reload concerns, and the changes whose notifications are queued.
type subscriptions struct {
	mu sync.Mutex
	of map[*mcp.ServerSession]map[string]bool
	// queue holds the events whose notifications are still to be sent, by one
	// goroutine at a time, while sending is set.
	queue   []change
	sending bool
}

// A change is a resource event queued: its kind, and the URI or key it names.
type change struct {
	kind engine.EventKind
	name string
}

// subscribeResource is the SDK's SubscribeHandler: it admits a subscription to a URI a
// resource serves, while the session holds fewer than maxSubscriptions.
func (s *Server) subscribeResource(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if _, err := feature.FindResource(s.eng.Registry(), uri); err != nil {
		s.log.Warn("resource subscription", "uri", uri, "error", err)
		return &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: err.Error(), Data: []byte(fmt.Sprintf(`{"uri":%q}`, uri))}
	}
	subs := &s.subs
	subs.mu.Lock()
	defer subs.mu.Unlock()
	set := subs.of[req.Session]
	if set == nil {
		if subs.of == nil {
			subs.of = map[*mcp.ServerSession]map[string]bool{}
		}
		set = map[string]bool{}
		subs.of[req.Session] = set
		// The SDK forgets a session's subscriptions when it ends; so does this.
		go func() {
			_ = req.Session.Wait()
			subs.mu.Lock()
			delete(subs.of, req.Session)
			subs.mu.Unlock()
		}()
	}
	if !set[uri] && len(set) >= maxSubscriptions {
		msg := fmt.Sprintf("this session is subscribed to %d resources, the most it may be: unsubscribe from one first", maxSubscriptions)
		s.log.Warn("resource subscription", "uri", uri, "error", msg)
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	}
	set[uri] = true
	return nil
}

// unsubscribeResource is the SDK's UnsubscribeHandler. Unsubscribing from what the session
// is not subscribed to is no error: the answer is the same.
func (s *Server) unsubscribeResource(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	delete(s.subs.of[req.Session], req.Params.URI)
	return nil
}

// resourceEvent queues the notifications/resources/updated an engine event calls
// for. It runs on the goroutine that publishes the event, so the notifications go
// out from another (a client slow to read must not hold up a reload, or the call
// that reported a change), one event after another, in the order published.
func (s *Server) resourceEvent(ev engine.Event) {
	switch ev.Kind {
	case feature.ResourceChanged, feature.ResourceUpdated, feature.ResourceAdded:
	default:
		return
	}
	subs := &s.subs
	subs.mu.Lock()
	defer subs.mu.Unlock()
	c := change{ev.Kind, ev.Name}
	// Nobody to tell, or told already by what is queued (a tool that reports one
	// change in a loop queues it once): the queue holds no more than the URIs
	// subscribed to and the resources.
	if len(subs.of) == 0 || slices.Contains(subs.queue, c) || c.kind == feature.ResourceChanged && !subs.subscribedTo(c.name) {
		return
	}
	subs.queue = append(subs.queue, c)
	if !subs.sending {
		subs.sending = true
		go s.sendQueued()
	}
}

// subscribedTo reports whether some session is subscribed to uri; mu is held.
func (subs *subscriptions) subscribedTo(uri string) bool {
	for _, set := range subs.of {
		if set[uri] {
			return true
		}
	}
	return false
}

// sendQueued sends what resourceEvent queued until the queue is empty.
func (s *Server) sendQueued() {
	subs := &s.subs
	for {
		subs.mu.Lock()
		if len(subs.queue) == 0 {
			subs.sending = false
			subs.mu.Unlock()
			return
		}
		c := subs.queue[0]
		subs.queue = subs.queue[1:]
		subscribed := map[string]bool{}
		for _, set := range subs.of {
			maps.Copy(subscribed, set)
		}
		subs.mu.Unlock()
		var uris []string
		reg := s.eng.Registry()
		for _, uri := range slices.Sorted(maps.Keys(subscribed)) {
			switch {
			case c.kind == feature.ResourceChanged:
				if uri == c.name {
					uris = append(uris, uri)
				}
			default:
				// A reload names the resource by its key, and a template's serves
				// many URIs: those subscribed to that it now serves changed.
				if r, err := feature.FindResource(reg, uri); err == nil && r.Key() == c.name {
					uris = append(uris, uri)
				}
			}
		}
		s.resourceUpdated(uris)
	}
}

// resourceUpdated sends notifications/resources/updated for each of uris to the
// sessions of every view subscribed to it.
func (s *Server) resourceUpdated(uris []string) {
	if len(uris) == 0 {
		return
	}
	s.viewsMu.RLock()
	srvs := []*mcp.Server{s.base.srv}
	for _, v := range s.views {
		srvs = append(srvs, v.srv)
	}
	s.viewsMu.RUnlock()
	for _, uri := range uris {
		for _, srv := range srvs {
			if err := srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
				s.log.Debug("resource updated notification", "uri", uri, "error", err)
			}
		}
	}
}
