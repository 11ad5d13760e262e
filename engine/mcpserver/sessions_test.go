package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// forModes runs test in both ways HTTPHandler serves: stateless, and with Sessions.
func forModes(t *testing.T, test func(t *testing.T, sessions bool)) {
	for _, sessions := range []bool{false, true} {
		name := "stateless"
		if sessions {
			name = "sessions"
		}
		t.Run(name, func(t *testing.T) { test(t, sessions) })
	}
}

const initializeRequest = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// request sends one request by hand under ctx: method, the token, the session (""
// for none), a body ("" for none) and further headers as name, value pairs.
func (f *httpFixture) request(t *testing.T, ctx context.Context, method, token, session, body string, headers ...string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, f.url+"/mcp", r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+token)
	if session != "" {
		req.Header.Set(sessionHeader, session)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// open opens a session of the principal of token and returns its id.
func (f *httpFixture) open(t *testing.T, token string) string {
	t.Helper()
	resp := f.request(t, context.Background(), http.MethodPost, token, "", initializeRequest)
	io.Copy(io.Discard, resp.Body)
	id := resp.Header.Get(sessionHeader)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, id)
	}
	if resp := f.request(t, context.Background(), http.MethodPost, token, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s", resp.Status)
	}
	return id
}

// An SSE event as read: its id and data.
type sseEvent struct{ id, data string }

// events reads the events of an event stream, sending each on the channel it
// returns, which is closed at the end of the stream.
func events(body io.Reader) <-chan sseEvent {
	out := make(chan sseEvent, 16)
	go func() {
		defer close(out)
		var e sseEvent
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				out <- e
				e = sseEvent{}
			case strings.HasPrefix(line, "id:"):
				e.id = strings.TrimSpace(line[3:])
			case strings.HasPrefix(line, "data:"):
				e.data += strings.TrimSpace(line[5:])
			}
		}
	}()
	return out
}

// nextEvent is the next event of a stream that has data, or fails the test.
func nextEvent(t *testing.T, ch <-chan sseEvent, what string) sseEvent {
	t.Helper()
	deadline := time.After(guardTime)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("%s: the stream ended", what)
			}
			if e.data != "" {
				return e
			}
		case <-deadline:
			t.Fatalf("%s: no event", what)
		}
	}
}

// A client that initializes gets a session, which its requests name and which
// keeps the principal's state; a principal's session cannot be used, listened to or
// ended by another principal; DELETE ends it.
func TestSessionsBelongToTheirPrincipal(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{Sessions: true})
	alice := f.client(t, aliceToken, nil)
	if alice.ID() == "" {
		t.Fatal("no session id for a client that initialized")
	}
	id := f.open(t, aliceToken)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Count","arguments":{}}}`
	if resp := f.request(t, context.Background(), http.MethodPost, aliceToken, id, call); resp.StatusCode != http.StatusOK {
		t.Errorf("alice's call on her session: %s", resp.Status)
	}
	for _, m := range []struct{ method, body string }{{http.MethodPost, call}, {http.MethodGet, ""}, {http.MethodDelete, ""}} {
		resp := f.request(t, context.Background(), m.method, bobToken, id, m.body)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("bob's %s on alice's session: %s, want 403", m.method, resp.Status)
		}
	}
	if resp := f.request(t, context.Background(), http.MethodDelete, aliceToken, id, ""); resp.StatusCode != http.StatusNoContent {
		t.Errorf("alice's DELETE of her session: %s", resp.Status)
	}
	if resp := f.request(t, context.Background(), http.MethodPost, aliceToken, id, call); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a call on the session ended: %s, want 404", resp.Status)
	}
}

// A principal holds at most MaxSessions: past it an initialize is refused, other
// principals are not held back, and a session ended by DELETE or by being idle
// for SessionTimeout frees its place.
func TestSessionsBoundedPerPrincipal(t *testing.T) {
	for _, end := range []string{"DELETE", "idle"} {
		t.Run(end, func(t *testing.T) {
			timeout := time.Hour
			if end == "idle" {
				timeout = time.Millisecond // a guard below waits for it
			}
			f := newHTTPFixture(t, HTTPOptions{Sessions: true, MaxSessions: 2, SessionTimeout: timeout})
			var ids []string
			if end == "DELETE" {
				ids = append(ids, f.open(t, aliceToken), f.open(t, aliceToken))
				resp := f.request(t, context.Background(), http.MethodPost, aliceToken, "", initializeRequest)
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), "too many sessions for alice: at most 2 at once") {
					t.Errorf("alice's third session: %s %s", resp.Status, body)
				}
				f.open(t, bobToken)
				f.request(t, context.Background(), http.MethodDelete, aliceToken, ids[0], "")
				f.open(t, aliceToken)
				return
			}
			// Sessions that expire as soon as they are idle: opening more than two,
			// one after the other, needs each to have expired.
			for range 5 {
				deadline := time.Now().Add(guardTime)
				for {
					resp := f.request(t, context.Background(), http.MethodPost, aliceToken, "", initializeRequest)
					io.Copy(io.Discard, resp.Body)
					if resp.StatusCode == http.StatusOK {
						break
					}
					if resp.StatusCode != http.StatusTooManyRequests || time.Now().After(deadline) {
						t.Fatalf("an initialize while idle sessions expire: %s", resp.Status)
					}
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
}

// A session's call is cancelled by its principal's notifications/cancelled on the
// session, and not by the same id on another session, nor by another principal;
// the log says why the call ended, and how long after the cancel.
func TestSessionsCancel(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{Sessions: true})
	alice, aliceToo, bob := f.open(t, aliceToken), f.open(t, aliceToken), f.open(t, bobToken)
	resp := f.request(t, context.Background(), http.MethodPost, aliceToken, alice, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Block","arguments":{}}}`)
	f.waitEntered(t, "alice's call")
	for _, c := range []struct{ who, token, session string }{{"alice's other session", aliceToken, aliceToo}, {"bob", bobToken, bob}} {
		if r := f.request(t, context.Background(), http.MethodPost, c.token, c.session, cancelSeven); r.StatusCode != http.StatusAccepted {
			t.Errorf("a cancel of %s: %s", c.who, r.Status)
		}
	}
	if r := f.request(t, context.Background(), http.MethodPost, bobToken, alice, cancelSeven); r.StatusCode != http.StatusForbidden {
		t.Errorf("bob's cancel on alice's session: %s, want 403", r.Status)
	}
	f.waitLog(t, `msg=cancel principal=bob session=`+bob+` request=7 calls=0\n`)
	if n := f.srv.InFlight(); n != 1 {
		t.Fatalf("%d calls in flight after cancels that are not alice's on her session, want 1", n)
	}
	if r := f.request(t, context.Background(), http.MethodPost, aliceToken, alice, cancelSeven); r.StatusCode != http.StatusAccepted {
		t.Errorf("alice's cancel: %s", r.Status)
	}
	f.waitLog(t, `msg=cancel principal=alice session=`+alice+` request=7 calls=1\n`)
	f.waitLog(t, `level=WARN msg="tool call" principal=alice tool=Block duration=\S+ outcome=cancelled reason="the client cancelled the request" since_cancel=\S+ `)
	io.Copy(io.Discard, resp.Body)
	// Bob's cancel on alice's session was refused, so it is not logged as a cancel.
	if strings.Contains(f.log.String(), "principal=bob session="+alice) {
		t.Errorf("bob's refused cancel on alice's session was logged as a cancel:\n%s", f.log.String())
	}
}

// A client whose stream broke in the middle of a call resumes it with
// Last-Event-ID, on GET, and reads the answer there.
func TestSessionsResume(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{Sessions: true})
	id := f.open(t, aliceToken)
	ctx, hangUp := context.WithCancel(context.Background())
	resp := f.request(t, ctx, http.MethodPost, aliceToken, id, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Block","arguments":{}}}`)
	// The stream opens with a priming event, whose id is where to resume from.
	var prime sseEvent
	select {
	case prime = <-events(resp.Body):
	case <-time.After(guardTime):
		t.Fatal("no priming event")
	}
	if prime.id == "" || prime.data != "" {
		t.Fatalf("the first event is %+v, want a priming event (an id, no data)", prime)
	}
	f.waitEntered(t, "the call")
	hangUp()
	f.releaseAll()
	get := f.request(t, context.Background(), http.MethodGet, aliceToken, id, "", "Last-Event-ID", prime.id)
	if get.StatusCode != http.StatusOK {
		t.Fatalf("resuming with Last-Event-ID: %s", get.Status)
	}
	e := nextEvent(t, events(get.Body), "the resumed stream")
	if e.id == "" || !strings.Contains(e.data, `"id":3`) || !strings.Contains(e.data, "released") {
		t.Errorf("the resumed stream's event: %+v", e)
	}
}

// A session has a stream of its own (GET) on which it is told of a change of the
// tool list outside any call.
func TestSessionsGetStream(t *testing.T) {
	dir := t.TempDir()
	tool := `return { name = "%s", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true, call = function() return "ok" end }`
	if err := writeFile(dir, "first.lua", fmt.Sprintf(tool, "First")); err != nil {
		t.Fatal(err)
	}
	f, eng, srv := newProfileFixture(t, dir, "Hidden", HTTPOptions{Sessions: true})
	id := f.open(t, aliceToken)
	get := f.request(t, context.Background(), http.MethodGet, aliceToken, id, "")
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %s", get.Status)
	}
	stream := events(get.Body)
	// The stream is open once the server has sent on it; the first change may be
	// sent before the GET is served, so changes are made until one is seen.
	for i := 0; ; i++ {
		if err := writeFile(dir, fmt.Sprintf("t%d.lua", i), fmt.Sprintf(tool, fmt.Sprint("T", i))); err != nil {
			t.Fatal(err)
		}
		eng.Refresh()
		srv.Sync(context.Background())
		select {
		case e := <-stream:
			if e.data == "" {
				continue
			}
			if !strings.Contains(e.data, "notifications/tools/list_changed") {
				t.Fatalf("on the GET stream: %+v", e)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
		if i > int(guardTime/(100*time.Millisecond)) {
			t.Fatal("no list_changed on the GET stream")
		}
	}
}

// With Sessions, a request naming no session is served as without: a client of
// 2026-07-28, which the SDK serves only without a session, and a stateless call;
// and the protection against DNS rebinding holds for requests of a session.
func TestSessionsServeStatelessRequests(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{Sessions: true})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	resp := f.request(t, context.Background(), http.MethodPost, aliceToken, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"Count","arguments":{}}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "Count")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"text":"1"`) || resp.Header.Get(sessionHeader) != "" {
		t.Errorf("a 2026-07-28 call: %s %s (session %q)", resp.Status, body, resp.Header.Get(sessionHeader))
	}
	resp = f.request(t, context.Background(), http.MethodPost, aliceToken, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Count","arguments":{}}}`,
		"Mcp-Protocol-Version", "2025-06-18")
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"text":"2"`) {
		t.Errorf("a call without a session: %s %s", resp.Status, body)
	}
	id := f.open(t, aliceToken)
	for _, m := range []string{http.MethodPost, http.MethodGet} {
		resp := f.request(t, context.Background(), m, aliceToken, id, listRequest, "Host", "evil.example:80")
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a %s of a session with a foreign Host on loopback: %s, want 403", m, resp.Status)
		}
	}
}
