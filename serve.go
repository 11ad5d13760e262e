package luatool

import (
	"context"
	"net/http"
	"os"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/mcpserver"
)

// server returns the Runtime's MCP server, made on first use: it follows the
// engine's reloads until Close.
func (r *Runtime) server() *mcpserver.Server {
	r.mcpOnce.Do(func() {
		r.mcp = mcpserver.New(r.eng, mcpserver.Options{Logger: r.log})
	})
	return r.mcp
}

// ServeStdio serves the tools to one MCP client on the process's standard input and
// output until the input ends (nil) or ctx does (its error). A client that answers
// permission asks (by elicitation) is asked; for one that does not, Options.Ask is.
func (r *Runtime) ServeStdio(ctx context.Context) error {
	return r.server().ServeStdio(ctx, os.Stdin, os.Stdout, mcpserver.StdioOptions{})
}

// HTTPOptions configure HTTPHandler (mcpserver.HTTPOptions): bearer tokens, the
// browser origins allowed, the bounds on calls and requests. The zero value
// authenticates no one: every client is the local user, which suits only a server
// nobody else can connect to.
type HTTPOptions = mcpserver.HTTPOptions

// HTTPHandler returns a handler serving the tools over MCP's streamable HTTP, to be
// mounted where the host chooses; each request stands alone (see
// mcpserver.Server.HTTPHandler).
func (r *Runtime) HTTPHandler(opts HTTPOptions) http.Handler {
	return r.server().HTTPHandler(opts)
}

// Watch keeps the tools of Options.ToolDirs current with their files until ctx ends:
// a save takes effect once the directory is quiet for a moment, a file that no
// longer loads keeps its last good version serving, and the Logger hears of each
// change. MCP clients are told of the tools that came and went. It returns nil when
// ctx ends, and an error at once when there is no directory to watch.
func (r *Runtime) Watch(ctx context.Context) error {
	return r.eng.Watch(ctx, engine.WatchOptions{})
}
