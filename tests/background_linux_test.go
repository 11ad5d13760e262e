package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// TestMCPBackgroundEndsWithTheServer starts a background command with a child of
// its own through `luatool serve`, then ends the server, politely (SIGTERM: the
// engine closes) or not (SIGKILL: the sandbox's guard is left to act), and checks
// that the child is gone: a background command never outlives luatool. (Killed,
// luatool leaves its temporary directories behind, the output files among them.)
func TestMCPBackgroundEndsWithTheServer(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			s := newMCPDirs(t)
			cmd := exec.Command(luatoolBinary(t), "serve", "--standard-tools", "--tools", s.tools, "--root", s.root, "--allow", "Bash")
			cmd.Stderr = s.stderr
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
			s.connect(t, &mcp.CommandTransport{Command: cmd}, nil, "")

			res := s.call(t, "Bash", map[string]any{"command": "sleep 1000 & echo $!; wait", "run_in_background": true})
			m := regexp.MustCompile(`Output is being written to: (\S+\.output)\.`).FindStringSubmatch(text(res))
			if res.IsError || m == nil {
				t.Fatalf("start: %s\nserver stderr:\n%s", text(res), s.stderr)
			}
			var pid int
			eventually(t, "the child's pid in "+m[1], func() bool {
				b, _ := os.ReadFile(m[1])
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return pid > 0
			})
			child, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				t.Fatalf("pidfd_open(%d): %v", pid, err)
			}
			defer unix.Close(child)
			defer unix.PidfdSendSignal(child, unix.SIGKILL, nil, 0) // whatever the test found

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			// A minute bounds a broken test; the child goes as soon as the
			// server's end is handled.
			fds := []unix.PollFd{{Fd: int32(child), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, int(time.Minute/time.Millisecond))
			for err == syscall.EINTR {
				n, err = unix.Poll(fds, int(time.Minute/time.Millisecond))
			}
			if err != nil || n == 0 {
				t.Errorf("the background command's child %d outlived the server (%v, %v)\nserver stderr:\n%s", pid, sig, err, s.stderr)
			}
			if sig == syscall.SIGKILL {
				os.RemoveAll(filepath.Dir(m[1])) // what the killed server left
			}
			if sig == syscall.SIGTERM {
				// The engine closed: it removed the output file too.
				eventually(t, "the output file removed", func() bool {
					_, err := os.Stat(m[1])
					return os.IsNotExist(err)
				})
			}
		})
	}
}
