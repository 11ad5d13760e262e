package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func init() {
	commands["dev"] = command{
		usage: "dev",
		help:  "serve a tool directory over HTTP on loopback, reloading each save, and say how to open the MCP Inspector on it",
		about: `The development server: serve --http on loopback (a free port, unless --http ADDR)
for the tool directories (--tools DIR; default: the current directory), reloading
each as its files change, with a token made for this run. It prints the URL, the
header clients send ("Authorization: Bearer TOKEN"), and the command that opens
the MCP Inspector on the server (npx @modelcontextprotocol/inspector ...).

--inspector starts the Inspector too, through npx (Node.js; npx downloads the
Inspector the first time), given the URL and the token in a private file rather
than on its command line; it stops with dev. Without --inspector nothing is
downloaded or started. Ctrl-C stops dev.`,
		flags: []string{"tools", "root", "http", "inspector", "no-standard-tools", "debounce", "poll", "allow", "deny", "settings", "env"},
		run:   runDev,
	}
}

// inspectorPackage is the npm package of the MCP Inspector.
const inspectorPackage = "@modelcontextprotocol/inspector"

// runDev serves the tool directories over HTTP on loopback with hot reload, and
// prints how to reach them (devServing).
func runDev(a *app, args []string) int {
	if len(args) > 0 {
		return a.errorf("dev takes no arguments: give the tool directory with --tools DIR")
	}
	if a.cfg.noWatch {
		return a.errorf("dev reloads tools as they change: --no-watch is for serve")
	}
	if len(a.cfg.tools) == 0 {
		a.cfg.tools = []string{"."}
	}
	if a.cfg.http == "" {
		a.cfg.http = "127.0.0.1:0"
	}
	if strings.HasPrefix(a.cfg.http, "unix:") {
		return a.errorf("dev serves on a loopback address, which the Inspector and browsers reach: for a unix socket, run luatool serve --http %s", a.cfg.http)
	}
	root, err := a.projectRoot()
	if err != nil {
		return a.errorf("%v", err)
	}
	if a.cfg.root == "" {
		if err := checkImplicitRoot(root); err != nil {
			return a.errorf("%v", err)
		}
	}
	var npx string
	if a.cfg.install.inspector {
		if npx, err = exec.LookPath("npx"); err != nil {
			return a.errorf("--inspector starts the MCP Inspector with npx, which is not on PATH: install Node.js (22.19 or later), or run dev without --inspector")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var inspectorDone <-chan struct{}
	a.serving = func(url, token, tokenFile string) {
		a.devServing(url, token, tokenFile)
		if npx == "" {
			return
		}
		if token == "" {
			fmt.Fprintln(a.stdout, "--inspector: not started: it would need the token of --tokens; open it as above")
			return
		}
		if inspectorDone, err = startInspector(ctx, npx, url, token, a.stdout); err != nil {
			fmt.Fprintf(a.stdout, "--inspector: not started: %v\n", err)
		}
	}
	code := runServe(a, nil)
	cancel()
	if inspectorDone != nil {
		<-inspectorDone
	}
	return code
}

// devServing prints where dev serves, the header clients send, and the command
// that opens the Inspector on it.
func (a *app) devServing(url, token, tokenFile string) {
	fmt.Fprintf(a.stdout, "luatool dev: serving %v at %s, reloading each save\n", a.cfg.tools, url)
	header := "Authorization: Bearer TOKEN"
	if token != "" {
		header = "Authorization: Bearer " + token
		fmt.Fprintf(a.stdout, "clients send the header %q: the token made for this run (kept in %s while dev runs)\n", header, tokenFile)
	} else {
		fmt.Fprintf(a.stdout, "clients send the header %q, with their token\n", header)
	}
	fmt.Fprintf(a.stdout, `
MCP Inspector (Node.js 22.19 or later):
  npx %s --transport http --server-url %s --header %q
or luatool dev --inspector starts it. Ctrl-C stops.
`, inspectorPackage, url, header)
}

// startInspector starts the MCP Inspector's web UI on the server at url, through
// npx, until ctx ends. The token goes in a configuration file only this user may
// read, not on the command line, which every user of the machine may see. Its
// output, with the address of its page, goes to out. done is closed once it has
// exited and its file is removed.
func startInspector(ctx context.Context, npx, url, token string, out io.Writer) (done <-chan struct{}, err error) {
	dir, err := os.MkdirTemp("", "luatool-inspector-")
	if err != nil {
		return nil, err
	}
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"luatool": map[string]any{
		"type": "streamable-http", "url": url, "headers": map[string]string{"Authorization": "Bearer " + token},
	}}})
	file := filepath.Join(dir, "inspector.json")
	if err := os.WriteFile(file, config, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.CommandContext(ctx, npx, "-y", inspectorPackage, "--config", file)
	cmd.Stdout, cmd.Stderr = out, out
	// At the end of dev the Inspector is asked to stop as Ctrl-C would, and npx
	// killed if it has not within the grace.
	ownGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		cmd.Wait()
		os.RemoveAll(dir)
	}()
	return exited, nil
}
