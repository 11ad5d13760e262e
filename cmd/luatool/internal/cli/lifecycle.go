package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/luatool/luatool/engine/mcpserver"
)

// How serve ends, on SIGTERM or SIGINT (or, over stdio, at the end of stdin): it
// takes no new tool calls, lets those in flight finish for --shutdown-grace, then
// ends those still running (each is answered and logged as cancelled, "the server
// is shutting down"), and exits 0. Over HTTP the listener is closed at once, so a
// load balancer sends new requests elsewhere; the connections close once their
// answers are written.

// defaultShutdownGrace is --shutdown-grace when not given: long enough for most
// calls, well inside the 90 s systemd and the 30 s Kubernetes give a process
// before they kill it.
const defaultShutdownGrace = 30 * time.Second

// answerTime bounds how long the answers of calls that have ended may take to be
// written once shutting down, before the connections still open (subscription
// streams, which never end by themselves) are closed.
const answerTime = 2 * time.Second

// stopSignals are the signals that end serve.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// drain stops srv taking calls and waits for those in flight, ending them once
// grace is over; why says what began it, for the log.
func (a *app) drain(srv *mcpserver.Server, why string, grace time.Duration) {
	log := a.logger()
	log.Info("shutting down: "+why+"; no new calls are taken", "in_flight", srv.InFlight(), "grace", grace)
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	start := time.Now()
	if n := srv.Shutdown(ctx); n > 0 {
		log.Warn("shutdown: the grace is over: the calls still running were cancelled", "cancelled", n)
		return
	}
	log.Info("shutdown: every call has ended", "waited", time.Since(start).Round(time.Millisecond))
}

// serveHTTPUntil serves hs on ln until stop ends, then shuts down: the listener
// is closed at once, srv drains (drain), and the connections close once their
// answers are written, or after answerTime. It returns once all of that is done:
// http.Server.Serve returns as soon as shutting down begins, and returning then
// would end the process while calls still run.
func (a *app) serveHTTPUntil(stop context.Context, hs *http.Server, ln net.Listener, srv *mcpserver.Server) error {
	// The requests' contexts end when the calls are over and the answers had their
	// time: that ends the subscription streams, which hold their connection open.
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	hs.BaseContext = func(net.Listener) context.Context { return streams }
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-stop.Done()
		closed := make(chan error, 1)
		go func() { closed <- hs.Shutdown(context.Background()) }() // stops accepting now
		a.drain(srv, "a stop signal", a.cfg.serve.shutdownGrace)
		select {
		case <-closed:
			return
		case <-time.After(answerTime):
		}
		endStreams()
		select {
		case <-closed:
		case <-time.After(answerTime):
			hs.Close()
		}
	}()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}

// serveStdioUntil serves srv over stdin and stdout until stdin ends or stop ends.
// At a stop signal it drains (drain): the calls in flight finish, or are ended at
// the end of the grace, and are answered before it returns. At the end of stdin
// every request read is served (ServeStdio), within the grace: past it, those
// still waiting are refused and those running ended.
func (a *app) serveStdioUntil(stop context.Context, srv *mcpserver.Server) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	grace := a.cfg.serve.shutdownGrace
	var once sync.Once
	drain := func(why string, grace time.Duration) { once.Do(func() { a.drain(srv, why, grace) }) }
	go func() {
		select {
		case <-stop.Done():
			drain("a stop signal", grace)
			cancel() // the answers of the calls that ended are written before ServeStdio returns
		case <-ctx.Done():
		}
	}()
	in := &eofReader{r: a.stdin, eof: func() {
		time.AfterFunc(grace, func() { drain(fmt.Sprintf("stdin ended %s ago", grace), 0) })
	}}
	err := srv.ServeStdio(ctx, in, a.stdout, mcpserver.StdioOptions{MaxInFlight: a.cfg.maxInFlight})
	once.Do(func() {}) // waits for a drain under way, so that its lines are logged; none starts after
	if stop.Err() != nil {
		return nil
	}
	return err
}

// An eofReader reads r and calls eof once, the first time r ends.
type eofReader struct {
	r    io.Reader
	eof  func()
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(e.eof)
	}
	return n, err
}

// hangups calls reload at each SIGHUP until the function it returns is called,
// through the shutdown too: without it SIGHUP would end the process (status 129),
// as it does any Go program that does not handle it, calls in flight included.
func hangups(log *slog.Logger, reload func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ch:
				log.Info("SIGHUP: reloading")
				reload()
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
