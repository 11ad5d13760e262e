package hostmod_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
)

// runLua runs body as a function of the strings args on a VM with the read-only modules
// for roots, each required under its own name, and returns its results as
// JSON values (nil for nil). A raised error is returned as err.
func runLua(t *testing.T, roots []string, body string, args ...string) ([]any, error) {
	t.Helper()
	mods, err := hostmod.Standard(roots)
	if err != nil {
		t.Fatalf("Standard: %v", err)
	}
	return runWith(t, mods, &bindings.Call{Context: context.Background(), Access: bindings.AccessWrite}, body, args...)
}

// runWith is runLua on the modules mods, each required under its own name, under the
// call c.
func runWith(t *testing.T, mods []*bindings.Module, c *bindings.Call, body string, args ...string) ([]any, error) {
	t.Helper()
	var src strings.Builder
	for _, m := range mods {
		fmt.Fprintf(&src, "local %s = require(%q)\n", m.Name, m.Name)
	}
	src.WriteString("return function(...)\n" + body + "\nend")
	prog, err := bindings.Compile("test.lua", []byte(src.String()), bindings.Limits{})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	vm := bindings.NewVM(bindings.Config{Modules: mods})
	defer vm.Close()
	if err := vm.Run(prog); err != nil {
		t.Fatalf("run: %v", err)
	}
	lvs := make([]lua.LValue, len(args))
	for i, a := range args {
		lvs[i] = lua.LString(a)
	}
	out, err := vm.Call(c, vm.Main, lvs...)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(out))
	for i, v := range out {
		if vals[i], err = vm.FromLua(v); err != nil {
			t.Fatalf("result %d: %v", i+1, err)
		}
	}
	return vals, nil
}

// mustLua is runLua for bodies that must not raise.
func mustLua(t *testing.T, roots []string, body string, args ...string) []any {
	t.Helper()
	out, err := runLua(t, roots, body, args...)
	if err != nil {
		t.Fatalf("lua: %v", err)
	}
	return out
}

// wantFailure checks that out is nil, a message containing msg, and code.
func wantFailure(t *testing.T, out []any, msg, code string) {
	t.Helper()
	if len(out) != 3 || out[0] != nil {
		t.Fatalf("got %#v, want nil, %q, %q", out, msg, code)
	}
	if s, _ := out[1].(string); !strings.Contains(s, msg) {
		t.Errorf("message %q does not contain %q", out[1], msg)
	}
	if out[2] != code {
		t.Errorf("code %v, want %q", out[2], code)
	}
}

// wantRaise checks that err is a script error whose message contains msg.
func wantRaise(t *testing.T, err error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", msg)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %q does not contain %q", err, msg)
	}
}

// tree writes files (relative path -> content) under dir. Each file's mtime is set
// one minute after the previous one's, in the order given, so that mtime order is
// the order of files.
func tree(t *testing.T, dir string, files ...string) {
	t.Helper()
	if len(files)%2 != 0 {
		t.Fatal("tree: odd number of arguments")
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < len(files); i += 2 {
		p := filepath.Join(dir, filepath.FromSlash(files[i]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i/2) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// strs converts a JSON array of strings.
func strs(t *testing.T, v any) []string {
	t.Helper()
	arr, ok := v.([]any)
	if !ok {
		t.Fatalf("got %#v, want an array", v)
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		out[i], _ = e.(string)
	}
	return out
}

// rels makes absolute paths relative to dir, slash-separated.
func rels(t *testing.T, dir string, paths []string) []string {
	t.Helper()
	out := make([]string, len(paths))
	for i, p := range paths {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = filepath.ToSlash(r)
	}
	return out
}

// access is the access of a call of a tool that is read-only for its input, or not.
func access(readOnly bool) bindings.Access {
	if readOnly {
		return bindings.AccessRead
	}
	return bindings.AccessWrite
}

// closeHost stands for the engine: it keeps what calls register with OnClose and
// runs it all at close, as Engine.Close does.
type closeHost struct {
	mu   sync.Mutex
	fns  map[int]func()
	next int
}

func (h *closeHost) onClose(fn func()) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fns == nil {
		h.fns = map[int]func(){}
	}
	id := h.next
	h.next++
	h.fns[id] = fn
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.fns, id)
	}
}

func (h *closeHost) close() {
	h.mu.Lock()
	fns := h.fns
	h.fns = nil
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, fn := range fns {
		wg.Go(fn)
	}
	wg.Wait()
}

// registered is how many closers are registered.
func (h *closeHost) registered() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.fns)
}

var trailerRE = regexp.MustCompile(`\n\[(exited with code \d+|killed[^\]]*)\]\n$`)

// ended waits until the output file at path is complete (ends with its trailer) and
// returns it. The minute is a bound for a broken test, not a measure.
func ended(t *testing.T, path string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err == nil && trailerRE.Match(b) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never ended: %q, %v", path, b, err)
		}
	}
}

// holds waits until the output file at path holds want so far.
func holds(t *testing.T, path, want string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if string(b) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %q, want %q", path, b, want)
		}
	}
}
