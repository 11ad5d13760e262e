package mcpserver

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// guardTime bounds a test's wait for what happens at once when the server is right,
// so that a broken server fails the test instead of hanging it.
const guardTime = 20 * time.Second

// postAs posts body as a client of protocol 2025-06-18 with a token, under ctx, and
// sends the response's body (or the error) on the channel it returns.
func (f *httpFixture) postAs(ctx context.Context, token, body string) <-chan string {
	return f.postVersion(ctx, token, "2025-06-18", body)
}

// postVersion is postAs for a client of protocol version.
func (f *httpFixture) postVersion(ctx context.Context, token, version, body string) <-chan string {
	out := make(chan string, 1)
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url+"/mcp", strings.NewReader(body))
		if err != nil {
			out <- err.Error()
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", version)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- err.Error()
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		out <- resp.Status + " " + string(data)
	}()
	return out
}

func (f *httpFixture) waitEntered(t *testing.T, what string) {
	t.Helper()
	select {
	case <-f.entered:
	case <-time.After(guardTime):
		t.Fatalf("%s never started", what)
	}
}

func answerOf(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(guardTime):
		t.Fatalf("%s was never answered", what)
		return ""
	}
}

// waitLog polls the fixture's log for a line matching pattern.
func (f *httpFixture) waitLog(t *testing.T, pattern string) {
	t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(guardTime)
	for !re.MatchString(f.log.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no line %s in the log:\n%s", pattern, f.log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const cancelSeven = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`

// A cancel ends the call of its principal with that request id, served directly or
// by the SDK, and is logged; another principal's cancel of the same id ends nothing.
func TestHTTPCancelEndsTheCallOfItsPrincipal(t *testing.T) {
	for _, way := range []struct{ name, meta string }{{"direct", ""}, {"by the SDK", `,"_meta":{"progressToken":"p"}`}} {
		t.Run(way.name, func(t *testing.T) {
			f := newHTTPFixture(t, HTTPOptions{})
			call := f.postAs(context.Background(), aliceToken, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Block","arguments":{}`+way.meta+`}}`)
			f.waitEntered(t, "alice's call")
			if got := answerOf(t, f.postAs(context.Background(), bobToken, cancelSeven), "bob's cancel"); !strings.HasPrefix(got, "202") {
				t.Errorf("bob's cancel: %s", got)
			}
			f.waitLog(t, `level=INFO msg=cancel principal=bob request=7 calls=0\n`)
			select {
			case got := <-call:
				t.Fatalf("bob's cancel ended alice's call: %s", got)
			default:
			}
			if got := answerOf(t, f.postAs(context.Background(), aliceToken, cancelSeven), "alice's cancel"); !strings.HasPrefix(got, "202") {
				t.Errorf("alice's cancel: %s", got)
			}
			// MCP asks that a cancelled request be not answered: its stream ends empty.
			// Served directly it always does. The SDK's handler returns when the POST's
			// context ends, at the cancel, while the call, ended by the same cancel,
			// hands it its result: which comes first is the scheduler's choice, so
			// there the answer may be the interruption (never a result of the call
			// running on, which Block has none of until released).
			got := answerOf(t, call, "alice's cancelled call")
			interrupted := way.meta != "" && strings.Contains(got, `"isError":true`) &&
				strings.Contains(got, "[Request interrupted by user for tool use]")
			if got != "200 OK " && !interrupted {
				t.Errorf("alice's cancelled call: %s", got)
			}
			f.waitLog(t, `level=INFO msg=cancel principal=alice request=7 calls=1\n`)
			f.waitLog(t, `level=WARN msg="tool call" principal=alice tool=Block duration=\S+ outcome=cancelled reason="the client cancelled the request" since_cancel=\S+ stage=`)
		})
	}
}

// A client that goes away while its call runs ends it.
func TestHTTPDroppedClientEndsItsCall(t *testing.T) {
	for _, way := range []struct{ name, meta string }{{"direct", ""}, {"by the SDK", `,"_meta":{"progressToken":"p"}`}} {
		t.Run(way.name, func(t *testing.T) {
			f := newHTTPFixture(t, HTTPOptions{})
			ctx, hangUp := context.WithCancel(context.Background())
			defer hangUp()
			f.postAs(ctx, aliceToken, `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"Block","arguments":{}`+way.meta+`}}`)
			f.waitEntered(t, "alice's call")
			hangUp()
			f.waitLog(t, `msg="tool call" principal=alice tool=Block duration=\S+ outcome=cancelled reason="the client went away" since_cancel=\S+`)
		})
	}
}

// Two calls of one principal in flight under one id: a cancel of it cannot tell
// which it means, and ends neither.
func TestHTTPCancelOfASharedIDEndsNone(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{})
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Block","arguments":{}}}`
	first, second := f.postAs(context.Background(), aliceToken, body), f.postAs(context.Background(), aliceToken, body)
	f.waitEntered(t, "alice's first call")
	f.waitEntered(t, "alice's second call")
	answerOf(t, f.postAs(context.Background(), aliceToken, cancelSeven), "alice's cancel")
	f.waitLog(t, `level=WARN msg=cancel principal=alice request=7 calls=0 error="several calls of this principal in flight have this request id`)
	f.releaseAll()
	for _, ch := range []<-chan string{first, second} {
		if got := answerOf(t, ch, "a call of id 7"); !strings.Contains(got, "released") {
			t.Errorf("a call the ambiguous cancel should have left: %s", got)
		}
	}
}

// A cancel ends the one call of a batch (protocol 2025-03-26) it names, and not
// the others of the batch; a forged tag in a call's _meta binds it to nothing.
func TestHTTPCancelEndsACallOfABatch(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{})
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"Block","arguments":{},"_meta":{"luatool/call-tag":"forged"}}}`
	}
	batch := f.postVersion(context.Background(), aliceToken, "2025-03-26", "["+call("7")+","+call("8")+"]")
	f.waitEntered(t, "the batch's first call")
	f.waitEntered(t, "the batch's second call")
	answerOf(t, f.postAs(context.Background(), aliceToken, cancelSeven), "alice's cancel")
	f.waitLog(t, `level=INFO msg=cancel principal=alice request=7 calls=1\n`)
	f.waitLog(t, `level=WARN msg="tool call" principal=alice tool=Block duration=\S+ outcome=cancelled reason="the client cancelled the request" since_cancel=\S+ `)
	if n := f.srv.InFlight(); n != 1 {
		t.Errorf("%d calls in flight after the cancel of one of two, want 1", n)
	}
	f.releaseAll()
	if got := answerOf(t, batch, "the batch"); !regexp.MustCompile(`"id":8,"result":\{[^}]*"text":"released"`).MatchString(got) {
		t.Errorf("the batch's answer: %s", got)
	}
}
