package mcpserver

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/internal/syncbuf"
)

// shutdownFixture serves Block, which waits for release or its end, and Quick,
// which answers at once, to an in-memory client, logging to log.
type shutdownFixture struct {
	srv     *Server
	session *mcp.ClientSession
	entered chan struct{}
	release chan struct{}
	log     syncbuf.Buffer
}

func newShutdownFixture(t *testing.T) *shutdownFixture {
	f := &shutdownFixture{entered: make(chan struct{}, 1), release: make(chan struct{})}
	block := goTool("Block", true, func(ctx context.Context, _ map[string]any) (*engine.ToolResult, error) {
		f.entered <- struct{}{}
		select {
		case <-f.release:
			return &engine.ToolResult{Data: "released"}, nil
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	})
	quick := goTool("Quick", true, func(context.Context, map[string]any) (*engine.ToolResult, error) {
		return &engine.ToolResult{Data: "quick"}, nil
	})
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Timeout: time.Minute, Tools: []engine.ToolDef{block, quick}})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = New(eng, Options{Logger: slog.New(slog.NewTextHandler(&f.log, nil))})
	t.Cleanup(f.srv.Close)
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := f.srv.MCP().Connect(context.Background(), serverEnd, nil); err != nil {
		t.Fatal(err)
	}
	f.session, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.session.Close() })
	return f
}

// block starts a call of Block, waits until it runs, and returns the channel its
// text arrives on.
func (f *shutdownFixture) block(t *testing.T) <-chan string {
	t.Helper()
	answer := make(chan string, 1)
	go func() {
		res, err := f.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "Block", Arguments: map[string]any{}})
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
func TestShutdownLetsCallsFinish(t *testing.T) {
	f := newShutdownFixture(t)
	answer := f.block(t)
	ended := make(chan int, 1)
	go func() { ended <- f.srv.Shutdown(context.Background()) }()
	// Shutdown refuses calls from its first step: wait for it to have taken it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := f.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "Quick", Arguments: map[string]any{}})
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
	close(f.release)
	if got := <-answer; got != "released" {
		t.Errorf("the call across Shutdown was answered %q", got)
	}
	if n := <-ended; n != 0 {
		t.Errorf("Shutdown ended %d calls, want none: the call finished", n)
	}
	if !regexp.MustCompile(`msg="tool call" tool=Block duration=\S+ outcome=ok\n`).MatchString(f.log.String()) {
		t.Errorf("the finished call is not logged ok:\n%s", f.log.String())
	}
	if !regexp.MustCompile(`level=WARN msg="tool call" tool=Quick duration=\S+ outcome=refused error=".*the server is shutting down`).MatchString(f.log.String()) {
		t.Errorf("the refused call is not logged so:\n%s", f.log.String())
	}
}

// When Shutdown's context ends first, it ends the calls still running, which are
// answered and logged as cancelled because the server is shutting down.
func TestShutdownEndsCallsPastGrace(t *testing.T) {
	f := newShutdownFixture(t)
	answer := f.block(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the grace is over before it begins
	if n := f.srv.Shutdown(ctx); n != 1 {
		t.Errorf("Shutdown ended %d calls, want 1", n)
	}
	// The engine's text for a call aborted, as Claude Code's.
	if got := <-answer; !strings.Contains(got, "interrupted") {
		t.Errorf("the call ended by Shutdown was answered %q", got)
	}
	if n := f.srv.InFlight(); n != 0 {
		t.Errorf("InFlight = %d after Shutdown returned", n)
	}
	if !regexp.MustCompile(`msg="tool call" tool=Block duration=\S+ outcome=cancelled reason="the server is shutting down"`).MatchString(f.log.String()) {
		t.Errorf("the call ended is not logged as cancelled by the shutdown:\n%s", f.log.String())
	}
}
