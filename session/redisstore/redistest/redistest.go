// Package redistest starts a redis-server of a test's own, so that the tests of
// package redisstore, and those of anything that serves from it, run against a real
// server rather than a fake.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/internal/extdata"
)

// RequireEnv is the variable that, set to 1 (as CI does), makes a missing redis-server
// fail a test rather than skip it.
const RequireEnv = "LUATOOL_REQUIRE_REDIS"

// A Server is a redis-server listening on a loopback port, with a temporary directory
// and no persistence.
type Server struct {
	// URL is the server's redis:// URL.
	URL string
	// Addr is its host:port.
	Addr string

	tb   testing.TB
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// Start starts a server, stopped when the test ends. Without redis-server on PATH it
// skips the test, saying how to install it, or fails it when RequireEnv is 1.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := extdata.Program(tb, "redis-server", RequireEnv, "on Debian: apt-get install -y redis-server")
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir()}
	var err error
	tb.Cleanup(s.Stop)
	// A free port can be taken by someone else before the server binds it: try a
	// few.
	for range 5 {
		if s.port, err = freePort(); err != nil {
			tb.Fatal(err)
		}
		if err = s.start(); err == nil {
			s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
			s.URL = "redis://" + s.Addr
			return s
		}
	}
	tb.Fatalf("redis-server did not start: %v", err)
	return nil
}

// freePort returns a loopback port that nothing listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs redis-server on s.port and waits until it says it is ready, or exits.
func (s *Server) start() error {
	cmd := exec.Command(s.bin,
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--unixsocket", "",
		"--dir", s.dir, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", "", "--databases", "1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan bool, 1)
	log := &strings.Builder{}
	done := make(chan struct{})
	go func() {
		// The log is read to its end, so that the server never blocks on a full
		// pipe; it is shown if the server fails to start.
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				select {
				case ready <- true:
				default:
				}
			}
		}
		select {
		case ready <- false:
		default:
		}
		cmd.Wait()
		close(done)
	}()
	select {
	case ok := <-ready:
		if ok {
			s.cmd, s.done = cmd, done
			return nil
		}
		<-done
		return fmt.Errorf("it exited:\n%s", log)
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("not ready after a minute:\n%s", log)
	}
}

// Stop kills the server, as a crash would, and waits for it to exit; its data is
// gone. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Pause stops the server's process (SIGSTOP) without closing its connections, as a
// server that hangs; Resume lets it go on. Where there is no SIGSTOP (Windows) it
// skips the test.
func (s *Server) Pause() {
	s.tb.Helper()
	if sigStop == nil {
		s.tb.Skip("redistest: this system has no signal that pauses a process")
	}
	s.signal(sigStop)
}

// Resume lets a paused server go on.
func (s *Server) Resume() {
	if sigCont != nil {
		s.signal(sigCont)
	}
}

func (s *Server) signal(sig os.Signal) {
	s.tb.Helper()
	if s.cmd == nil {
		s.tb.Fatal("redistest: the server is stopped")
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.tb.Fatal(err)
	}
}

// Restart starts a stopped server again on the same port, empty.
func (s *Server) Restart() {
	s.tb.Helper()
	if s.cmd != nil {
		s.tb.Fatal("redistest: Restart of a running server")
	}
	if err := s.start(); err != nil {
		s.tb.Fatalf("redis-server did not restart on port %d: %v", s.port, err)
	}
}
