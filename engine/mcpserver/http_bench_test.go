package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
)

// benchClients is how many clients BenchmarkHTTPCalls runs side by side.
const benchClients = 8

// BenchmarkHTTPCalls measures tools/call over streamable HTTP on loopback, 8
// clients side by side calling a Go tool that answers at once: without
// authentication (every client the local user), and with bearer tokens (each client
// a principal of its own, out of 100). The difference is what authentication,
// principals and their sessions cost a call.
func BenchmarkHTTPCalls(b *testing.B) {
	for _, withTokens := range []bool{false, true} {
		name := "auth=none"
		if withTokens {
			name = "auth=tokens"
		}
		b.Run(name, func(b *testing.B) {
			eng, err := engine.New(engine.Options{Cwd: b.TempDir(), Tools: []engine.ToolDef{
				goTool("Echo", true, func(context.Context, map[string]any) (*engine.ToolResult, error) {
					return &engine.ToolResult{Data: "ok"}, nil
				}),
			}})
			if err != nil {
				b.Fatal(err)
			}
			opts := HTTPOptions{}
			var tokens []string
			if withTokens {
				creds := benchCredentials(100)
				if opts.Tokens, err = NewTokens(creds); err != nil {
					b.Fatal(err)
				}
				for _, c := range creds[:benchClients] {
					tokens = append(tokens, c.Token)
				}
			} else {
				tokens = make([]string, benchClients)
			}
			srv := New(eng, Options{})
			defer srv.Close()
			hs := httptest.NewServer(srv.HTTPHandler(opts))
			defer hs.Close()
			sessions := make([]*mcp.ClientSession, benchClients)
			for i, token := range tokens {
				var rt http.RoundTripper = http.DefaultTransport
				if token != "" {
					rt = bearer(token)
				}
				transport := &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true}
				s, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), transport, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				sessions[i] = s
			}
			params := &mcp.CallToolParams{Name: "Echo", Arguments: map[string]any{}}
			b.ResetTimer()
			var wg sync.WaitGroup
			for i, s := range sessions {
				n := b.N / benchClients
				if i < b.N%benchClients {
					n++
				}
				wg.Go(func() {
					for range n {
						if res, err := s.CallTool(context.Background(), params); err != nil || res.IsError {
							b.Errorf("Echo: %v %+v", err, res)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// BenchmarkBearerAuth measures what authentication adds to one request before the
// SDK sees it: the SDK's middleware reading the header, the hash of the token and
// its constant-time comparison with every entry of a table of 1, 100 or 10,000
// principals, and the principal's TokenInfo on the context.
func BenchmarkBearerAuth(b *testing.B) {
	for _, n := range []int{1, 100, 10000} {
		for _, metadata := range []bool{false, true} {
			b.Run(fmt.Sprintf("principals=%d/metadata=%v", n, metadata), func(b *testing.B) {
				creds := benchCredentials(n)
				tokens, err := NewTokens(creds)
				if err != nil {
					b.Fatal(err)
				}
				var reached int
				h := requireToken(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached++ }), tokens, metadata)
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8097/mcp", strings.NewReader(""))
				req.Header.Set("Authorization", "Bearer "+creds[n-1].Token)
				w := httptest.NewRecorder()
				b.ReportAllocs()
				for b.Loop() {
					h.ServeHTTP(w, req)
				}
				if reached == 0 || w.Code != http.StatusOK {
					b.Fatalf("the request was not authenticated: %d", w.Code)
				}
			})
		}
	}
}

// benchCredentials returns n principals with tokens of 32 bytes.
func benchCredentials(n int) []Credential {
	creds := make([]Credential, n)
	for i := range creds {
		creds[i] = Credential{Name: fmt.Sprintf("user%d", i), Token: fmt.Sprintf("token-%026d", i)}
	}
	return creds
}
