package mcpserver

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// blockCall starts alice's call of the fixture's Block, waits until it runs, and
// returns the channel its text arrives on.
func blockCall(t *testing.T, f *httpFixture) <-chan string {
	t.Helper()
	alice := f.client(t, aliceToken, nil)
	answer := make(chan string, 1)
	go func() {
		res, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "Block", Arguments: map[string]any{}})
		if err != nil {
			answer <- "error: " + err.Error()
			return
		}
		answer <- res.Content[0].(*mcp.TextContent).Text
	}()
	<-f.entered
	return answer
}

// Shutdown refuses new calls at once and returns once the call in flight has
// finished, which is answered as usual.
func TestShutdownLetsCallsFinish(t *testing.T) { forModes(t, testShutdownLetsCallsFinish) }

func testShutdownLetsCallsFinish(t *testing.T, sessions bool) {
	f := newHTTPFixture(t, HTTPOptions{Sessions: sessions})
	answer := blockCall(t, f)
	ended := make(chan int, 1)
	go func() { ended <- f.srv.Shutdown(context.Background()) }()
	// Shutdown refuses calls from its first step: wait for it to have taken it.
	bob := f.client(t, bobToken, nil)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := bob.CallTool(context.Background(), &mcp.CallToolParams{Name: "Count", Arguments: map[string]any{}})
		if err != nil {
			if !strings.Contains(err.Error(), "the server is shutting down") {
				t.Fatalf("a call while shutting down: %v", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("calls are still taken 30s after Shutdown began")
		}
	}
	if n := f.srv.InFlight(); n != 1 {
		t.Errorf("InFlight = %d while Block runs, want 1", n)
	}
	select {
	case n := <-ended:
		t.Fatalf("Shutdown returned (%d) while a call ran", n)
	default:
	}
	f.releaseAll()
	if got := <-answer; got != "released" {
		t.Errorf("the call across Shutdown was answered %q", got)
	}
	if n := <-ended; n != 0 {
		t.Errorf("Shutdown ended %d calls, want none: the call finished", n)
	}
	if !regexp.MustCompile(`msg="tool call" principal=alice tool=Block duration=\S+ outcome=ok\n`).MatchString(f.log.String()) {
		t.Errorf("the finished call is not logged ok:\n%s", f.log.String())
	}
	if !regexp.MustCompile(`level=WARN msg="tool call" principal=bob tool=Count duration=\S+ outcome=refused error=".*the server is shutting down`).MatchString(f.log.String()) {
		t.Errorf("the refused call is not logged so:\n%s", f.log.String())
	}
}

// When Shutdown's context ends first, it ends the calls still running, which are
// answered and logged as cancelled because the server is shutting down.
func TestShutdownEndsCallsPastGrace(t *testing.T) { forModes(t, testShutdownEndsCallsPastGrace) }

func testShutdownEndsCallsPastGrace(t *testing.T, sessions bool) {
	f := newHTTPFixture(t, HTTPOptions{Sessions: sessions})
	answer := blockCall(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the grace is over before it begins
	if n := f.srv.Shutdown(ctx); n != 1 {
		t.Errorf("Shutdown ended %d calls, want 1", n)
	}
	// Told it was the shutdown, not the user, that stopped it.
	if got := <-answer; got != ErrShuttingDown.(shuttingDown).ModelText() {
		t.Errorf("the call ended by Shutdown was answered %q", got)
	}
	if n := f.srv.InFlight(); n != 0 {
		t.Errorf("InFlight = %d after Shutdown returned", n)
	}
	if !regexp.MustCompile(`msg="tool call" principal=alice tool=Block duration=\S+ outcome=cancelled reason="the server is shutting down"`).MatchString(f.log.String()) {
		t.Errorf("the call ended is not logged as cancelled by the shutdown:\n%s", f.log.String())
	}
}
