package scripts_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/builtin/confine/confinetest"
	"github.com/luatool/luatool/builtin/hostmod"
)

// TestBackgroundEndsWithTheEngine: Engine.Close stops every background command, a
// child it started in the background too, before it returns, and removes the
// output files; after it, the ids are unknown.
func TestBackgroundEndsWithTheEngine(t *testing.T) {
	v := newBgEnv(t, hostmod.ShellOptions{})
	ctx := context.Background()
	id, path := v.start(ctx, `{"command": "sleep 1000 & echo $!; wait", "run_in_background": true}`)
	pid := pidIn(t, path)
	child := confinetest.Pidfd(t, pid)
	_, plainPath := v.start(ctx, `{"command": "sleep 1000", "run_in_background": true}`)
	if err := v.e.Close(); err != nil {
		t.Fatal(err)
	}
	if !confinetest.Exited(t, child, 0) {
		t.Errorf("the background sleep %d survived Engine.Close", pid)
	}
	for _, p := range []string{path, plainPath} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived Engine.Close: %v", p, err)
		}
	}
	r := v.call(ctx, "toolu_stop", "TaskStop", `{"task_id": "`+id+`"}`)
	if got := r.Block.Content.String(); got != "<tool_use_error>No task found with ID: "+id+"</tool_use_error>" {
		t.Errorf("after Close: %s", got)
	}
}

// pidIn waits for the output file at path to hold a pid on its first line.
func pidIn(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if line, ok := strings.CutSuffix(string(b), "\n"); ok {
			if pid, err := strconv.Atoi(line); err == nil {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %q", b)
		}
	}
}
