// Command loadgen drives an MCP server with tools/call requests of one tool and
// prints what it measured as one line of key=value pairs, for bench/run:
//
//	loadgen stdio [flags] -- CMD ARGS...   spawn CMD, talk JSON-RPC over its stdin and stdout
//	loadgen http  [flags] -- CMD ARGS...   spawn CMD (every {addr} in ARGS becomes a free
//	                                       127.0.0.1:PORT) and POST to http://ADDR/mcp
//	loadgen cold  [flags] -- CMD ARGS...   spawn CMD, time it to its initialize answer
//
// stdio and http do the MCP handshake, then -warmup calls, then -n timed calls with
// -k in flight: over stdio, -k requests pipelined on the one connection (a new one is
// written as each answer arrives); over HTTP, -k client goroutines, each with its own
// keep-alive connection, posting one call at a time. Every answer is checked: a
// JSON-RPC error, an isError result or a text other than the one sent stops the run.
// They print
//
//	result mode=stdio calls=N k=K calls_per_s=F p50_us=F p99_us=F rss_kb=N client_cpu_us=F
//
// where rss_kb is the server's peak resident set (VmHWM of /proc/PID/status) read
// after the last call. cold prints "result mode=cold runs=R min_ms= median_ms= max_ms=".
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// protocolVersion is the MCP version the client asks for: the newest that
// luatool, the go-sdk v1.8.0 and the TypeScript SDK 1.32 all accept over both
// transports (2026-07-28 is stateless-HTTP-only in the go-sdk and unknown to the
// TypeScript SDK).
const protocolVersion = "2025-06-18"

const usage = `usage: loadgen stdio|http|cold [flags] -- CMD ARGS...`

func main() {
	if len(os.Args) < 2 {
		fail(errors.New(usage))
	}
	mode := os.Args[1]
	fs := flag.NewFlagSet("loadgen "+mode, flag.ExitOnError)
	n := fs.Int("n", 20000, "timed calls")
	warmup := fs.Int("warmup", 1000, "calls before the timed ones")
	k := fs.Int("k", 8, "calls in flight")
	runs := fs.Int("r", 10, "cold: starts to time")
	tool := fs.String("tool", "Echo", "the tool to call")
	text := fs.String("text", "hello", "the text argument of each call")
	_ = fs.Parse(os.Args[2:])
	argv := fs.Args()
	if len(argv) == 0 {
		fail(fmt.Errorf("%s: no server command after the flags\n%s", fs.Name(), usage))
	}
	if *k < 1 || *n < 1 || *warmup < 0 || *runs < 1 {
		fail(fmt.Errorf("%s: -k, -n and -r must be at least 1, -warmup at least 0", fs.Name()))
	}
	c := caller{tool: *tool, text: *text}
	switch mode {
	case "stdio":
		fail(runStdio(argv, c, *warmup, *n, *k))
	case "http":
		fail(runHTTP(argv, c, *warmup, *n, *k))
	case "cold":
		fail(runCold(argv, *runs))
	default:
		fail(fmt.Errorf("unknown mode %q (stdio, http or cold)\n%s", mode, usage))
	}
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// caller builds tools/call requests and checks their answers.
type caller struct{ tool, text string }

func (c caller) request(id int64) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": c.tool, "arguments": map[string]any{"text": c.text}},
	})
	return b
}

// response is the part of a JSON-RPC message the load generator reads.
type response struct {
	ID     *int64          `json:"id"`
	Method string          `json:"method"`
	Error  json.RawMessage `json:"error"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

// check returns an error unless r answers a call with the text sent.
func (c caller) check(r *response) error {
	switch {
	case r.Error != nil:
		return fmt.Errorf("call %d: JSON-RPC error %s", *r.ID, r.Error)
	case r.Result == nil:
		return fmt.Errorf("call %d: no result", *r.ID)
	case r.Result.IsError || len(r.Result.Content) != 1 || r.Result.Content[0].Text != c.text:
		return fmt.Errorf("call %d: result %+v, want the text %q", *r.ID, r.Result, c.text)
	}
	return nil
}

func initializeRequest(id int64) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":"initialize","params":{"protocolVersion":"` + protocolVersion +
		`","capabilities":{},"clientInfo":{"name":"luatool-loadgen","version":"1"}}}`)
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// server is a spawned server process. Its stderr goes to a temporary file, which
// costs the load generator nothing while the server logs (luatool logs a line a
// call), and whose start is shown with an error.
type server struct {
	cmd    *exec.Cmd
	stderr *os.File
}

// start spawns argv; with stdio, conn is a connection over its stdin and stdout.
func start(argv []string, stdio bool) (s *server, conn *stdioConn, err error) {
	f, err := os.CreateTemp("", "loadgen-stderr-*")
	if err != nil {
		return nil, nil, err
	}
	os.Remove(f.Name()) // the open file stays readable
	s = &server{cmd: exec.Command(argv[0], argv[1:]...), stderr: f}
	s.cmd.Stderr = f
	if stdio {
		w, err := s.cmd.StdinPipe()
		if err != nil {
			return nil, nil, err
		}
		r, err := s.cmd.StdoutPipe()
		if err != nil {
			return nil, nil, err
		}
		conn = &stdioConn{w: bufio.NewWriter(w), r: bufio.NewReaderSize(r, 64<<10), in: w}
	}
	if err := s.cmd.Start(); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	return s, conn, nil
}

// peakRSS is the server's VmHWM in KiB.
func (s *server) peakRSS() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc/PID/status")
}

// stop closes the server's stdin (a stdio server's end of input), gives it a
// second to exit on its own, which lets it write a profile, and then kills it.
func (s *server) stop(conn *stdioConn) {
	if conn != nil {
		conn.in.Close()
	}
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(time.Second):
	}
	_ = s.cmd.Process.Kill()
	<-done
}

// close releases the server's stderr file.
func (s *server) close() { s.stderr.Close() }

// wrap adds the start of the server's stderr to err.
func (s *server) wrap(err error) error {
	if err == nil {
		return nil
	}
	head := make([]byte, 8<<10)
	n, _ := s.stderr.ReadAt(head, 0)
	if n == 0 {
		return err
	}
	return fmt.Errorf("%w\nserver stderr:\n%s", err, head[:n])
}

// stdioConn is a JSON-RPC connection over a server's stdin and stdout.
type stdioConn struct {
	w  *bufio.Writer
	r  *bufio.Reader
	in io.Closer // the server's stdin
}

func (c *stdioConn) send(msg []byte) error {
	c.w.Write(msg)
	c.w.WriteByte('\n')
	return c.w.Flush()
}

// next reads the next message that answers a request, skipping notifications.
func (c *stdioConn) next() (*response, []byte, error) {
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			return nil, nil, fmt.Errorf("reading the server's stdout: %w", err)
		}
		var r response
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, nil, fmt.Errorf("the server wrote %q: %w", line, err)
		}
		if r.Method != "" {
			if r.ID != nil {
				return nil, nil, fmt.Errorf("the server sent a request the load generator cannot answer: %s", line)
			}
			continue
		}
		if r.ID == nil {
			return nil, nil, fmt.Errorf("an answer without an id: %s", line)
		}
		return &r, line, nil
	}
}

func runStdio(argv []string, c caller, warmup, n, k int) error {
	s, conn, err := start(argv, true)
	if err != nil {
		return err
	}
	defer s.close()
	defer s.stop(conn)
	if err := conn.send(initializeRequest(0)); err != nil {
		return s.wrap(err)
	}
	if _, _, err := conn.next(); err != nil {
		return s.wrap(err)
	}
	if err := conn.send([]byte(initialized)); err != nil {
		return s.wrap(err)
	}
	// Warm-up and timed calls are one stream: ids 1..warmup, then the timed ones,
	// always k in flight. Latencies are those of the timed ids.
	total := warmup + n
	sent := make([]time.Time, total+1)
	lat := make([]time.Duration, 0, n)
	var timedStart time.Time
	next := int64(1)
	send := func() error {
		sent[next] = time.Now()
		err := conn.send(c.request(next))
		next++
		return err
	}
	for next <= int64(min(k, total)) {
		if err := send(); err != nil {
			return s.wrap(err)
		}
	}
	for done := 0; done < total; done++ {
		r, _, err := conn.next()
		if err != nil {
			return s.wrap(err)
		}
		if *r.ID < 1 || *r.ID > int64(total) {
			return fmt.Errorf("an answer to id %d, never sent", *r.ID)
		}
		if err := c.check(r); err != nil {
			return s.wrap(err)
		}
		if *r.ID > int64(warmup) {
			lat = append(lat, time.Since(sent[*r.ID]))
		}
		if done+1 == warmup {
			timedStart = time.Now()
		}
		if next <= int64(total) {
			if err := send(); err != nil {
				return s.wrap(err)
			}
		}
	}
	if warmup == 0 {
		timedStart = sent[1]
	}
	elapsed := time.Since(timedStart)
	rss, err := s.peakRSS()
	if err != nil {
		return err
	}
	report("stdio", n, k, elapsed, lat, rss)
	return nil
}

// report prints a result line. client_cpu_us is the load generator's own CPU time
// a call, over the whole run: on a machine of two cores it shares them with the
// server, so it is printed to show it costs the same against every server.
func report(mode string, n, k int, elapsed time.Duration, lat []time.Duration, rssKB int64) {
	cpuUS := math.NaN() // where the system does not say (Windows)
	if cpu, ok := selfCPU(); ok {
		cpuUS = float64(cpu) / 1e3 / float64(len(lat))
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / 1e3
	}
	fmt.Printf("result mode=%s calls=%d k=%d calls_per_s=%.0f p50_us=%.1f p99_us=%.1f rss_kb=%d client_cpu_us=%.1f\n",
		mode, n, k, float64(n)/elapsed.Seconds(), pct(0.50), pct(0.99), rssKB, cpuUS)
}

// freeAddr returns a 127.0.0.1 address nothing listens on just now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// httpClient posts JSON-RPC messages to a streamable HTTP endpoint and reads the
// answer from either kind of response the transport allows: one JSON body or an
// event stream whose data line carries it.
type httpClient struct {
	url string
	hc  *http.Client
}

func (h *httpClient) post(ctx context.Context, msg []byte) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("POST %s: %s: %s", h.url, resp.Status, body)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var data []byte
		for line := range bytes.SplitSeq(body, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data = bytes.TrimSpace(d)
			}
		}
		if data == nil {
			return nil, fmt.Errorf("POST %s: an event stream without data: %q", h.url, body)
		}
		body = data
	}
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("POST %s: answer %q: %w", h.url, body, err)
	}
	if r.ID == nil {
		return nil, fmt.Errorf("POST %s: an answer without an id: %s", h.url, body)
	}
	return &r, nil
}

func runHTTP(argv []string, c caller, warmup, n, k int) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = strings.ReplaceAll(a, "{addr}", addr)
	}
	s, _, err := start(args, false)
	if err != nil {
		return err
	}
	defer s.close()
	defer s.stop(nil)
	h := &httpClient{url: "http://" + addr + "/mcp", hc: &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: k, MaxConnsPerHost: k, DisableCompression: true},
		Timeout:   30 * time.Second,
	}}
	ctx := context.Background()
	// The handshake, retried until the server listens.
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := h.post(ctx, initializeRequest(0))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return s.wrap(fmt.Errorf("the server did not answer initialize within 20s: %w", err))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Warm-up: the k clients each make their share, then the timed run.
	var id atomic.Int64
	phase := func(calls int, lats [][]time.Duration) error {
		var wg sync.WaitGroup
		errs := make([]error, k)
		var left atomic.Int64
		left.Store(int64(calls))
		for w := range k {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					t0 := time.Now()
					r, err := h.post(ctx, c.request(id.Add(1)))
					if err == nil {
						err = c.check(r)
					}
					if err != nil {
						errs[w] = err
						left.Store(0)
						return
					}
					if lats != nil {
						lats[w] = append(lats[w], time.Since(t0))
					}
				}
			})
		}
		wg.Wait()
		return errors.Join(errs...)
	}
	if err := phase(warmup, nil); err != nil {
		return s.wrap(err)
	}
	lats := make([][]time.Duration, k)
	t0 := time.Now()
	if err := phase(n, lats); err != nil {
		return s.wrap(err)
	}
	elapsed := time.Since(t0)
	rss, err := s.peakRSS()
	if err != nil {
		return err
	}
	report("http", n, k, elapsed, slices.Concat(lats...), rss)
	return nil
}

// runCold starts the server runs times, each time writing initialize at once and
// timing from the start of the process to the answer's line.
func runCold(argv []string, runs int) error {
	ms := make([]float64, runs)
	for i := range ms {
		t0 := time.Now()
		s, conn, err := start(argv, true)
		if err != nil {
			return err
		}
		err = conn.send(initializeRequest(0))
		if err == nil {
			_, _, err = conn.next()
		}
		ms[i] = float64(time.Since(t0)) / 1e6
		s.stop(conn)
		err = s.wrap(err)
		s.close()
		if err != nil {
			return err
		}
	}
	slices.Sort(ms)
	fmt.Printf("result mode=cold runs=%d min_ms=%.2f median_ms=%.2f max_ms=%.2f\n", runs, ms[0], ms[runs/2], ms[runs-1])
	return nil
}
