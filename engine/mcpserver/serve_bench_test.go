package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/luatool/luatool/engine"
)

// The serve benchmarks drive ServeStdio and HTTPHandler in process as a client
// process does, with raw JSON-RPC, so that what they measure is the server's cost
// of a call and not an SDK client's: a trivial Echo tool, with 1 call in flight and
// with 8.

// benchInFlight are the numbers of calls in flight the serve benchmarks run with.
var benchInFlight = []int{1, 8}

// benchEngine is an engine with one tool, Echo, answering its text at once.
func benchEngine(b *testing.B) *engine.Engine {
	b.Helper()
	echo := goTool("Echo", true, func(_ context.Context, in map[string]any) (*engine.ToolResult, error) {
		s, _ := in["text"].(string)
		return &engine.ToolResult{Data: s}, nil
	})
	eng, err := engine.New(engine.Options{Cwd: b.TempDir(), Tools: []engine.ToolDef{echo}})
	if err != nil {
		b.Fatal(err)
	}
	return eng
}

// echoLine is the line of a tools/call of Echo under id.
func echoLine(buf []byte, id int) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendInt(buf, int64(id), 10)
	return append(buf, `,"method":"tools/call","params":{"name":"Echo","arguments":{"text":"hello"}}}`...)
}

// answered reports whether a response is Echo's successful result.
func answered(resp []byte) bool {
	return bytes.Contains(resp, []byte(`"text":"hello"`)) && !bytes.Contains(resp, []byte(`"isError":true`))
}

// reportCalls reports calls/s, and the bytes and allocations per call, from the
// benchmark's own counters.
func reportCalls(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkCallsStdio measures tools/call over ServeStdio: a client writes calls
// on the server's input, keeping inFlight unanswered, and reads the answers from
// its output. The calls are served directly (path=direct, see direct.go) and by
// the SDK (path=sdk), side by side in one run, so that their ratio holds on a
// noisy machine.
func BenchmarkCallsStdio(b *testing.B) {
	for _, inFlight := range benchInFlight {
		for _, viaSDK := range []bool{false, true} {
			path := "direct"
			if viaSDK {
				path = "sdk"
			}
			b.Run(fmt.Sprintf("inflight=%d/path=%s", inFlight, path), func(b *testing.B) {
				benchStdio(b, inFlight, StdioOptions{viaSDK: viaSDK})
			})
		}
	}
}

// benchStdio runs b.N calls over ServeStdio with opts, inFlight at a time.
func benchStdio(b *testing.B, inFlight int, opts StdioOptions) {
	srv := New(benchEngine(b), Options{})
	defer srv.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), inR, outW, opts) }()
	out := bufio.NewReader(outR)
	readLine := func() []byte {
		line, err := out.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		return line
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n")
	readLine()
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")

	slots := make(chan struct{}, inFlight)
	read := make(chan error, 1)
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for range b.N {
			line, err := out.ReadBytes('\n')
			if err != nil {
				read <- err
				return
			}
			if !answered(line) {
				read <- fmt.Errorf("not Echo's result: %s", line)
				return
			}
			<-slots
		}
		read <- nil
	}()
	var buf []byte
	for i := range b.N {
		slots <- struct{}{}
		buf = append(echoLine(buf[:0], i+1), '\n')
		if _, err := inW.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-read; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportCalls(b)
	inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCallsHTTP measures tools/call over the streamable HTTP handler on
// loopback, without authentication: inFlight clients side by side, each posting
// one call at a time.
func BenchmarkCallsHTTP(b *testing.B) {
	for _, inFlight := range benchInFlight {
		b.Run(fmt.Sprintf("inflight=%d", inFlight), func(b *testing.B) {
			srv := New(benchEngine(b), Options{})
			defer srv.Close()
			hs := httptest.NewServer(srv.HTTPHandler(HTTPOptions{MaxCalls: 64}))
			defer hs.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: inFlight}}
			defer client.CloseIdleConnections()
			post := func(body []byte) ([]byte, error) {
				req, err := http.NewRequest(http.MethodPost, hs.URL, bytes.NewReader(body))
				if err != nil {
					return nil, err
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
				resp, err := client.Do(req)
				if err != nil {
					return nil, err
				}
				defer resp.Body.Close()
				data, err := io.ReadAll(resp.Body)
				if err == nil && resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d: %s", resp.StatusCode, data)
				}
				return data, err
			}
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for c := range inFlight {
				n := b.N / inFlight
				if c < b.N%inFlight {
					n++
				}
				wg.Go(func() {
					var buf []byte
					for i := range n {
						buf = echoLine(buf[:0], i+1)
						resp, err := post(buf)
						if err != nil || !answered(resp) {
							b.Errorf("Echo: %v %s", err, resp)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			reportCalls(b)
		})
	}
}
