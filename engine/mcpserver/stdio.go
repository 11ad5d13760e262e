package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/internal/groupwrite"
)

// The defaults of StdioOptions.
const (
	DefaultMaxInFlight   = 64
	DefaultMaxFrameBytes = 4 << 20
	DefaultMaxDepth      = 256
)

// batchesRemoved is the first protocol version without JSON-RPC batches.
const batchesRemoved = "2025-06-18"

// StdioOptions bound what a client of ServeStdio can make the server hold. A field
// left zero takes its default.
type StdioOptions struct {
	// MaxInFlight is the most requests handled at once. While that many are in
	// flight the server reads no further, so that a client writing faster than the
	// server answers is held back by the pipe, and memory stays bounded: at most
	// MaxInFlight requests of at most MaxFrameBytes each. Default 64.
	MaxInFlight int
	// MaxFrameBytes is the longest message, in bytes without its line terminator. A
	// longer line is discarded as it streams and answered with -32600. Default 4 MiB.
	MaxFrameBytes int
	// MaxDepth is the deepest nesting of objects and arrays in a message; a deeper
	// one is answered with -32600. Default 256, above what tool inputs may nest (the
	// Lua tools take 128), so that a tool says so itself.
	MaxDepth int

	// onFull, for tests, is called each time reading pauses because MaxInFlight
	// requests are in flight.
	onFull func()
	// viaSDK, for tests and benchmarks, has the SDK serve every tools/call (see
	// direct.go), to compare with.
	viaSDK bool
}

// ServeStdio serves one client over in and out, a process's stdin and stdout,
// until in ends or ctx is done. It returns nil at the end of in, once every request
// read has been answered. When ctx ends with no tool call in flight (as after
// Shutdown), the answers being written go out first, within a second.
//
// MCP's stdio transport is one JSON-RPC message per line. Every line is checked
// before the SDK sees it, and none can end the session: a malformed request is
// answered with a JSON-RPC error (-32700 for a line that is not JSON or not UTF-8,
// -32600 for one that is not a valid request, one over MaxFrameBytes or nested
// deeper than MaxDepth), with its id when the id can be found; a malformed
// notification or response gets no answer (JSON-RPC answers neither) and is
// logged. Blank lines are skipped. A request's id comes back exactly as sent, byte
// for byte, whatever the number or string; so does a numeric progress token.
//
// A batch (a JSON array of messages) is answered as the protocol version of the
// session says: 2024-11-05 and 2025-03-26 have batches, and get one array of the
// answers once every request in the batch is answered; 2025-06-18 removed them,
// so from that version on, and before initialize, a batch is answered with one
// -32600 error. A batch of more than MaxInFlight requests is refused the same way.
//
// Reading pauses while MaxInFlight requests are in flight, except when the server
// itself waits for the client (a permission ask put as an elicitation): the
// client's answer may be behind further requests, so reading goes on, and a
// request beyond the limit is then answered at once with -32000 (server busy)
// instead of waiting. Notifications and the client's responses are never held.
//
// At the end of in, the requests in flight run to their end and are answered; a
// call of the server's to the client still unanswered fails (a permission ask is
// then a deny), and a subscriptions/listen, which lasts until cancelled, is
// cancelled.
//
// Over 2026-07-28, a notification sent for a subscriptions/listen names it by the
// id the client gave it, as the listen's answer does.
//
// A read of in cannot be interrupted: when ctx ends the session, a goroutine may
// stay blocked reading in until it returns.
//
// Most tools/call requests are served without the SDK's request handling, which
// costs a trivial call most of its time (see direct.go); the answers are the same.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, opts StdioOptions) error {
	c := newStdioConn(ctx, out, opts, s.log)
	ss, err := s.base.srv.Connect(ctx, stdioTransport{c}, nil)
	if err != nil {
		return err
	}
	if !opts.viaSDK {
		c.direct = func(params json.RawMessage) (directCall, bool) { return s.direct(ss, params) }
	}
	go c.readLoop(in)
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		if s.InFlight() == 0 {
			// The server shut down (Shutdown): the answers of the calls that ended
			// go out before the connection closes.
			c.settle(settleTime)
		}
		ss.Close()
		<-ended
		c.directs.Wait() // cancelled with the connection; none writes after this returns
		return ctx.Err()
	case err := <-ended:
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
}

// stdioTransport hands the SDK its one connection.
type stdioTransport struct{ c *stdioConn }

func (t stdioTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// A stdioConn is the SDK's connection to a stdio client: the frames of in, checked,
// with ids of its own in place of the client's, and the SDK's messages written to
// out with the client's ids put back.
//
// The SDK sees each request under a small integer id: it decodes ids into float64
// and int64 (a 1e30 would come back as -9223372036854775808), and two requests
// with one id would confuse it. The client's id, as sent, is put back on the
// response.
type stdioConn struct {
	lim         frameLimits
	maxInFlight int
	onFull      func()
	log         *slog.Logger
	// tokenPrefix starts the progress tokens put in place of the client's numbers
	// (see substituteToken): random, so that no token of the client's is one.
	tokenPrefix string
	// direct, when set, returns how to serve a tools/call without the SDK, or
	// false when the SDK must. Direct calls run under ctx, which ends when the
	// connection closes.
	direct func(params json.RawMessage) (directCall, bool)
	ctx    context.Context
	stop   context.CancelFunc
	// directs counts the direct calls running, which ServeStdio waits for before it
	// returns, as the SDK waits for its own requests.
	directs sync.WaitGroup

	// out is the client's stream, its writes joined: under load, the answers of
	// calls that end together go out in one write.
	out *groupwrite.Writer

	// msgs carries the messages read to Read; it is closed at the end of in, after
	// readErr is set.
	msgs      chan jsonrpc.Message
	readErr   error
	closed    chan struct{}
	closeOnce sync.Once

	mu sync.Mutex
	// changed is closed, and replaced, whenever slots, awaiting or initializing
	// change.
	changed chan struct{}
	seq     int64
	// slots counts the requests read whose response is not written yet.
	slots int
	// calls holds the client's requests in flight by the id the SDK knows them by;
	// ids maps their ids (by idKey) to it.
	calls map[int64]*clientCall
	ids   map[string]int64
	// awaiting holds the ids of the server's calls to the client not answered yet.
	awaiting map[int64]bool
	// tokens maps progress tokens put in place of the client's to the client's.
	tokens map[string]json.RawMessage
	// version is the protocol version the session runs, once initialize is
	// answered: it says whether batches are taken. initializing counts the
	// initialize requests in flight.
	version      string
	initializing int
}

// A clientCall is a request of the client in flight.
type clientCall struct {
	id    json.RawMessage // as sent
	key   string          // idKey(id)
	token string          // the progress token put in place of the client's, if any
	// cancel ends a tools/call served directly (see direct.go), nil for the others.
	cancel context.CancelFunc
	// initialize marks the call whose result names the session's protocol version.
	initialize bool
	// listen marks a subscriptions/listen (2026-07-28), which stays in flight until
	// cancelled, and whose notifications name it by its id (subscriptionID);
	// ending marks one cancelled at the end of in.
	listen, ending bool
	// batch is the batch the call came in, if any, and index the place of its
	// response there.
	batch *batch
	index int
}

// A batch is a batch of the client's being answered. Its responses go out together,
// as one array, once every request in it is answered; its requests keep their slots
// until then, so that the responses held are bounded like the requests in flight.
type batch struct {
	responses [][]byte // in the order of the batch's requests; nil while unanswered
	// pending counts the requests not answered yet, plus one while the batch is
	// still being read, so that it cannot be sent half read.
	pending int
	// slots counts the slots its requests hold.
	slots int
}

func newStdioConn(ctx context.Context, out io.Writer, opts StdioOptions, log *slog.Logger) *stdioConn {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&opts.MaxInFlight, DefaultMaxInFlight)
	def(&opts.MaxFrameBytes, DefaultMaxFrameBytes)
	def(&opts.MaxDepth, DefaultMaxDepth)
	nonce := make([]byte, 6)
	rand.Read(nonce)
	ctx, stop := context.WithCancel(ctx)
	return &stdioConn{
		ctx:         ctx,
		stop:        stop,
		lim:         frameLimits{maxBytes: opts.MaxFrameBytes, maxDepth: opts.MaxDepth},
		maxInFlight: opts.MaxInFlight,
		onFull:      opts.onFull,
		log:         log,
		tokenPrefix: "luatool-progress-" + hex.EncodeToString(nonce) + "-",
		out:         groupwrite.New(out),
		msgs:        make(chan jsonrpc.Message),
		closed:      make(chan struct{}),
		changed:     make(chan struct{}),
		calls:       map[int64]*clientCall{},
		ids:         map[string]int64{},
		awaiting:    map[int64]bool{},
		tokens:      map[string]json.RawMessage{},
	}
}

// Read returns the next message for the SDK.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case m, ok := <-c.msgs:
		if !ok {
			return nil, c.readErr
		}
		return m, nil
	}
}

// Close stops delivering messages; it leaves in and out open (they are the
// process's).
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.stop()
	})
	return nil
}

// SessionID is empty: a stdio connection is its own session.
func (c *stdioConn) SessionID() string { return "" }

// readLoop reads in to its end, handing what the SDK should see to Read. At the end
// of in it waits until every request read is answered (see drain).
func (c *stdioConn) readLoop(in io.Reader) {
	lines := newLineReader(in, c.lim.maxBytes)
	for {
		line, tooLong, err := lines.next()
		if len(line) > 0 || tooLong {
			if werr := c.handle(parseFrame(line, tooLong, c.lim)); werr != nil {
				err = werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				c.drain()
			}
			c.readErr = err
			close(c.msgs)
			return
		}
		select {
		case <-c.closed:
			return
		default:
		}
	}
}

// handle deals with one line's frame. It returns an error only when out is broken.
func (c *stdioConn) handle(f frame) error {
	if f.kind == frameBatch {
		return c.batch(f.elems)
	}
	return c.message(f, nil)
}

// message deals with one message, alone on its line (b nil) or an element of the
// batch b, where its answer goes.
func (c *stdioConn) message(f frame, b *batch) error {
	switch f.kind {
	case frameAnswer:
		c.log.Warn("stdio: malformed message answered with an error", "id", string(truncate(f.id)), "code", f.err.Code, "error", f.err.Message)
		return c.answer(b, encodeResponse(f.id, nil, f.err))
	case frameDrop:
		c.log.Warn("stdio: malformed notification or response dropped", "error", f.err.Message)
	case frameRequest:
		return c.request(f, b)
	case frameNotification:
		c.notification(f)
	case frameResponse:
		c.response(f)
	}
	return nil
}

// batch deals with a batch, if the session's protocol version has them: each
// message as if on a line of its own, the answers to its requests sent as one
// array once all are in.
func (c *stdioConn) batch(elems []json.RawMessage) error {
	c.mu.Lock()
	// A batch right behind initialize is judged by its answer.
	for c.initializing > 0 {
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-c.closed:
			return nil
		}
		c.mu.Lock()
	}
	version := c.version
	c.mu.Unlock()
	var refusal string
	switch {
	case version == "":
		refusal = "a batch cannot come before the session is initialized (and initialize cannot be in one)"
	case version >= batchesRemoved:
		refusal = fmt.Sprintf("protocol version %s has no batches (MCP %s removed JSON-RPC batching); send each message on a line of its own", version, batchesRemoved)
	}
	frames := make([]frame, len(elems))
	requests := 0
	for i, e := range elems {
		frames[i] = parseMessage(bytes.TrimSpace(e))
		if frames[i].kind == frameRequest {
			requests++
		}
	}
	if refusal == "" && requests > c.maxInFlight {
		refusal = fmt.Sprintf("the batch has %d requests, more than the %d this server handles at once; send it in smaller batches", requests, c.maxInFlight)
	}
	if refusal != "" {
		f := invalid(nullID, refusal)
		return c.message(f, nil)
	}
	b := &batch{pending: 1}
	for _, f := range frames {
		if err := c.message(f, b); err != nil {
			return err
		}
	}
	c.mu.Lock()
	b.pending--
	return c.sendBatch(b) // unlocks c.mu
}

// answer writes an answer of the connection's own, or for a message of the batch b
// adds it to the batch's.
func (c *stdioConn) answer(b *batch, data []byte) error {
	if b == nil {
		return c.writeLine(data)
	}
	c.mu.Lock()
	b.responses = append(b.responses, data)
	c.mu.Unlock()
	return nil
}

// sendBatch writes the answers of b, once every request in it is answered, and
// frees their slots. c.mu is held, and sendBatch unlocks it.
func (c *stdioConn) sendBatch(b *batch) error {
	if b.pending > 0 {
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	var err error
	if len(b.responses) > 0 { // a batch of notifications and responses has no answer
		err = c.writeLine(append(append([]byte("["), bytes.Join(b.responses, []byte(","))...), ']'))
	}
	c.mu.Lock()
	c.slots -= b.slots
	c.signal()
	c.mu.Unlock()
	return err
}

// request hands a request to the SDK under an id of its own, once fewer than
// maxInFlight are in flight; b is the batch it came in, if any.
func (c *stdioConn) request(f frame, b *batch) error {
	key, _ := idKey(f.id)
	c.mu.Lock()
	if _, dup := c.ids[key]; dup {
		c.mu.Unlock()
		// The answer carries the id, though the request in flight under it will too:
		// the client knows it sent two, and null would tell it nothing.
		return c.answer(b, encodeResponse(f.id, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("invalid request: id %s is already in use by a request in flight", truncate(f.id))}))
	}
	for c.slots >= c.maxInFlight && len(c.awaiting) == 0 {
		changed := c.changed
		c.mu.Unlock()
		if c.onFull != nil {
			c.onFull()
		}
		select {
		case <-changed:
		case <-c.closed:
			return nil
		}
		c.mu.Lock()
	}
	if c.slots >= c.maxInFlight {
		// The server waits for the client, whose answer may come after this request:
		// waiting for a slot could wait forever.
		c.mu.Unlock()
		return c.answer(b, encodeResponse(f.id, nil, &jsonrpc.Error{Code: codeBusy, Message: fmt.Sprintf(
			"server busy: %d requests are in flight while the server waits for the client's answer to its own request; answer it, then send this one again", c.maxInFlight)}))
	}
	c.seq++
	n := c.seq
	c.slots++
	call := &clientCall{id: f.id, key: key, initialize: f.method == "initialize", listen: f.method == "subscriptions/listen", batch: b}
	if call.initialize {
		c.initializing++
	}
	if b != nil {
		call.index = len(b.responses)
		b.responses = append(b.responses, nil)
		b.pending++
		b.slots++
	}
	params := f.params
	if f.method == "tools/call" {
		params = decodableAnswers(params)
	}
	if p, token, ok := c.substituteToken(params, n); ok {
		params, call.token = p, token
	}
	var ctx context.Context
	if f.method == "tools/call" && c.direct != nil {
		// Set before the call is known, so that a cancellation read meanwhile finds
		// it.
		ctx, call.cancel = context.WithCancel(c.ctx)
	}
	c.calls[n] = call
	c.ids[key] = n
	c.mu.Unlock()
	if ctx != nil {
		if run, ok := c.direct(params); ok {
			c.directs.Add(1)
			go c.serveDirect(ctx, n, call.cancel, run)
			return nil
		}
		call.cancel()
	}
	c.deliver(&jsonrpc.Request{ID: intID(n), Method: f.method, Params: params})
	return nil
}

// serveDirect runs a tools/call served without the SDK, the client's request n,
// and writes its answer as the SDK's would be.
func (c *stdioConn) serveDirect(ctx context.Context, n int64, cancel context.CancelFunc, run directCall) {
	defer c.directs.Done()
	defer cancel()
	result, err := run(ctx)
	resp := &jsonrpc.Response{ID: intID(n), Result: result}
	if err != nil {
		resp.Error = err
	}
	if werr := c.writeResponse(resp); werr != nil {
		c.log.Debug("stdio: writing a response", "error", werr)
	}
}

// notification hands a notification to the SDK; a cancellation names the request
// by the SDK's id, and one for no request in flight is dropped.
func (c *stdioConn) notification(f frame) {
	if f.method == "notifications/cancelled" {
		params, ok := c.cancelled(f.params)
		if !ok {
			c.log.Debug("stdio: cancellation of no request in flight dropped")
			return
		}
		f.params = params
	}
	c.deliver(&jsonrpc.Request{Method: f.method, Params: f.params})
}

// cancelled rewrites the params of the client's notifications/cancelled to name
// the request by the SDK's id.
func (c *stdioConn) cancelled(params json.RawMessage) (json.RawMessage, bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return nil, false
	}
	key, ok := idKey(p["requestId"])
	if !ok {
		return nil, false
	}
	c.mu.Lock()
	n, ok := c.ids[key]
	var cancel context.CancelFunc
	if ok {
		cancel = c.calls[n].cancel
	}
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	if cancel != nil {
		// A tools/call that may be served directly; the SDK, told too, ignores a
		// cancellation of a request it does not know.
		cancel()
	}
	p["requestId"] = json.RawMessage(strconv.FormatInt(n, 10))
	out, err := json.Marshal(p)
	return out, err == nil
}

// response hands the client's answer to a call of the server's to the SDK. An
// answer to no such call is dropped.
func (c *stdioConn) response(f frame) {
	n, ok := serverID(f.id)
	c.mu.Lock()
	if ok = ok && c.awaiting[n]; ok {
		delete(c.awaiting, n)
		c.signal()
	}
	c.mu.Unlock()
	if !ok {
		c.log.Warn("stdio: response to no request of the server's dropped", "id", string(truncate(f.id)))
		return
	}
	resp := &jsonrpc.Response{ID: intID(n), Result: f.result}
	if len(f.rpcErr) > 0 && string(f.rpcErr) != "null" {
		var e jsonrpc.Error
		if err := json.Unmarshal(f.rpcErr, &e); err != nil {
			e = jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the client's error response is malformed: " + err.Error()}
		}
		resp.Result, resp.Error = nil, &e
	} else if len(f.result) == 0 {
		resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the client's response has neither a result nor an error"}
	}
	c.deliver(resp)
}

// deliver hands m to Read, unless the connection closes first.
func (c *stdioConn) deliver(m jsonrpc.Message) {
	select {
	case c.msgs <- m:
	case <-c.closed:
	}
}

// drain waits, at the end of in, until no request read is waiting for its
// response, or the connection closes. The server's calls to the client that are
// unanswered then, or made meanwhile, fail: the client can no longer answer, and
// the calls of its own that wait for those answers must end. Its listens are
// cancelled: each would otherwise stay open, and the server with it.
func (c *stdioConn) drain() {
	c.mu.Lock()
	for c.slots > 0 {
		var unanswered, listens []int64
		for n := range c.awaiting {
			unanswered = append(unanswered, n)
			delete(c.awaiting, n)
		}
		for n, call := range c.calls {
			if call.listen && !call.ending {
				call.ending = true
				listens = append(listens, n)
			}
		}
		changed := c.changed
		c.mu.Unlock()
		for _, n := range unanswered {
			c.deliver(&jsonrpc.Response{ID: intID(n), Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: "no answer: the client closed its input first"}})
		}
		// A listen lasts until it is cancelled, and nobody is left to cancel it.
		for _, n := range listens {
			c.deliver(&jsonrpc.Request{Method: "notifications/cancelled",
				Params: json.RawMessage(`{"requestId":` + strconv.FormatInt(n, 10) + `,"reason":"the client closed its input"}`)})
		}
		select {
		case <-changed:
		case <-c.closed:
			return
		}
		c.mu.Lock()
	}
	c.mu.Unlock()
}

// settleTime bounds how long ServeStdio waits, when ctx ends with no call in
// flight, for the answers being written.
const settleTime = time.Second

// settle waits until every request read is answered, or for at most d.
func (c *stdioConn) settle(d time.Duration) {
	timeout := time.After(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.slots > 0 {
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-timeout:
			c.mu.Lock()
			return
		}
		c.mu.Lock()
	}
}

// signal wakes what waits for slots, awaiting or initializing to change; c.mu is
// held.
func (c *stdioConn) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Write writes a message of the SDK's: a response with the client's id put back,
// or a request or notification of the server's.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		return c.writeResponse(m)
	case *jsonrpc.Request:
		c.outgoing(m)
		data, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return err
		}
		return c.writeLine(data)
	}
	return fmt.Errorf("mcpserver: stdio cannot write a %T", msg)
}

// writeResponse writes the response to a request of the client's, under its id.
// The id is free again as soon as the response may have reached the client; the
// slot, once the response is written, so that responses the client does not read
// hold back reading too.
func (c *stdioConn) writeResponse(m *jsonrpc.Response) error {
	n, _ := m.ID.Raw().(int64)
	c.mu.Lock()
	call := c.calls[n]
	if call == nil {
		c.mu.Unlock()
		// Not a request of the client's: the SDK answers nothing else.
		data, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return err
		}
		return c.writeLine(data)
	}
	delete(c.calls, n)
	delete(c.ids, call.key)
	delete(c.tokens, call.token)
	if call.initialize {
		c.initializing--
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if m.Error == nil && json.Unmarshal(m.Result, &r) == nil {
			c.version = r.ProtocolVersion
		}
	}
	result := m.Result
	if call.listen {
		result = withSubscriptionID(result, call.id)
	}
	data := encodeResponse(call.id, result, m.Error)
	if b := call.batch; b != nil {
		b.responses[call.index] = data
		b.pending--
		return c.sendBatch(b) // unlocks c.mu
	}
	c.mu.Unlock()
	err := c.writeLine(data)
	c.mu.Lock()
	c.slots--
	c.signal()
	c.mu.Unlock()
	return err
}

// outgoing keeps track of the server's calls to the client, and puts the client's
// progress tokens back.
func (c *stdioConn) outgoing(m *jsonrpc.Request) {
	if m.IsCall() {
		n, _ := m.ID.Raw().(int64)
		c.mu.Lock()
		c.awaiting[n] = true
		c.signal()
		c.mu.Unlock()
		return
	}
	switch m.Method {
	case "notifications/cancelled":
		// The server gave up a call of its own: no answer is awaited any more.
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			if n, ok := serverID(p.RequestID); ok {
				c.mu.Lock()
				delete(c.awaiting, n)
				c.signal()
				c.mu.Unlock()
			}
		}
	case "notifications/progress":
		if bytes.Contains(m.Params, []byte(c.tokenPrefix)) {
			m.Params = c.restoreToken(m.Params)
		}
	default:
		if bytes.Contains(m.Params, []byte(metaSubscriptionID)) {
			m.Params = c.restoreSubscription(m.Params)
		}
	}
}

// metaSubscriptionID is the key of _meta by which a notification of 2026-07-28
// names the subscriptions/listen request it is sent for.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// restoreSubscription puts the client's id of the listen request a notification is
// sent for in place of the SDK's: the client matches the notification to its listen
// by that id.
func (c *stdioConn) restoreSubscription(params json.RawMessage) json.RawMessage {
	n, ok := serverID(meta(params)[metaSubscriptionID])
	if !ok {
		return params
	}
	c.mu.Lock()
	call := c.calls[n]
	c.mu.Unlock()
	if call == nil || !call.listen {
		return params
	}
	return withSubscriptionID(params, call.id)
}

// withSubscriptionID is the JSON object obj whose _meta, if it names a
// subscription, names id instead.
func withSubscriptionID(obj, id json.RawMessage) json.RawMessage {
	if meta(obj)[metaSubscriptionID] == nil {
		return obj
	}
	return withMeta(obj, metaSubscriptionID, id)
}

// substituteToken puts a string token of the server's in place of a numeric
// progress token that would not survive the SDK (it keeps numbers as float64,
// so 12345678901234567890 would come back as 12345678901234567000). It returns the
// new params and the token; ok is false when the params keep their token. c.mu is
// held.
func (c *stdioConn) substituteToken(params json.RawMessage, n int64) (json.RawMessage, string, bool) {
	if !bytes.Contains(params, []byte(`"progressToken"`)) {
		return nil, "", false
	}
	var p, meta map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p["_meta"], &meta) != nil {
		return nil, "", false
	}
	raw := meta["progressToken"]
	if len(raw) == 0 || raw[0] == '"' || survivesFloat(raw) {
		return nil, "", false
	}
	token := c.tokenPrefix + strconv.FormatInt(n, 10)
	meta["progressToken"], _ = json.Marshal(token)
	var err error
	if p["_meta"], err = json.Marshal(meta); err != nil {
		return nil, "", false
	}
	out, err := json.Marshal(p)
	if err != nil {
		return nil, "", false
	}
	c.tokens[token] = raw
	return out, token, true
}

// restoreToken puts the client's progress token back in the params of a progress
// notification.
func (c *stdioConn) restoreToken(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	var token string
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p["progressToken"], &token) != nil {
		return params
	}
	c.mu.Lock()
	raw, ok := c.tokens[token]
	c.mu.Unlock()
	if !ok {
		return params
	}
	p["progressToken"] = raw
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// survivesFloat reports whether a JSON number comes back as the same text once
// decoded into a float64 and encoded again.
func survivesFloat(raw json.RawMessage) bool {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return false
	}
	out, err := json.Marshal(f)
	return err == nil && bytes.Equal(out, raw)
}

// writeLine writes one message and its newline.
func (c *stdioConn) writeLine(data []byte) error {
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// encodeResponse is a JSON-RPC response under a raw id: the result, or err with
// its code when it is or wraps a *jsonrpc.Error (the SDK's own reading of errors).
func encodeResponse(id, result json.RawMessage, err error) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	if err != nil {
		e, ok := err.(*jsonrpc.Error)
		if !ok {
			e = &jsonrpc.Error{Message: err.Error()}
			var wrapped *jsonrpc.Error
			if errors.As(err, &wrapped) {
				e.Code = wrapped.Code
			}
		}
		data, merr := json.Marshal(e)
		if merr != nil {
			data, _ = json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: e.Message})
		}
		b.WriteString(`,"error":`)
		b.Write(data)
	} else {
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		b.WriteString(`,"result":`)
		b.Write(result)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// intID is the SDK's form of an integer id.
func intID(n int64) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(float64(n))
	return id
}

// serverID reads the id of a call of the server's as the client echoes it: an
// integer, maybe written as 3.0.
func serverID(raw json.RawMessage) (int64, bool) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}
