package cli

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/luatool/luatool/engine/mcpserver"
)

// serveConfig is what serve's flags for HTTP and logs say, and the store's
// password file.
type serveConfig struct {
	// tokens is --tokens: the token file authenticating HTTP clients.
	tokens string
	// authServers are the --auth-server URLs, named by the protected-resource
	// metadata.
	authServers []string
	// allowOrigins are the --allow-origin origins, normalized (lower case).
	allowOrigins []string
	// insecureNoAuth is --insecure-no-auth: serve without authentication, to
	// anyone who reaches the address.
	insecureNoAuth bool
	// maxCalls is --max-calls: each principal's calls in flight at once, 0 for
	// mcpserver.DefaultMaxCalls.
	maxCalls int
	// sessions is --sessions: keep a session for each client that opens one.
	sessions bool
	// logFormat is --log-format: text (the default) or json.
	logFormat string
	// redisPasswordFile is --redis-password-file: the file holding the password of
	// the --state store (see stateURL).
	redisPasswordFile string
	// admin is --admin: where /healthz, /readyz and /metrics are served.
	admin string
	// shutdownGrace is --shutdown-grace: how long calls in flight may finish once
	// serve is told to stop (see lifecycle.go).
	shutdownGrace time.Duration
	// standardTools is --standard-tools: offer the standard tools beside the --tools
	// directories; standardLeftOut, that serve left them out for want of it (see
	// chooseStandardTools).
	standardTools, standardLeftOut bool
}

// flags registers serve's flags for HTTP and logs on fs.
func (c *serveConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.tokens, "tokens", "", "serve --http: authenticate clients by the bearer tokens of `FILE` (NAME TOKEN [PROFILE] a line)")
	fs.Func("auth-server", "serve --http: name the OAuth authorization server at `URL` in the protected-resource metadata (repeatable)", func(s string) error {
		if err := checkHTTPURL(s); err != nil {
			return err
		}
		c.authServers = append(c.authServers, s)
		return nil
	})
	fs.Func("allow-origin", "serve --http: let browser pages of `ORIGIN` (https://host[:port]) call the server (repeatable)", func(s string) error {
		o, err := parseOrigin(s)
		if err != nil {
			return err
		}
		c.allowOrigins = append(c.allowOrigins, o)
		return nil
	})
	fs.BoolVar(&c.insecureNoAuth, "insecure-no-auth", false, "serve --http: serve without authentication, to anyone who reaches the address (on loopback, every user of this machine)")
	fs.Func("max-calls", fmt.Sprintf("serve --http: let each principal have at most `N` tool calls in flight at once; past it a call is answered an error at once (default %d)", mcpserver.DefaultMaxCalls), func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a number of calls: give a whole number, 1 or more", s)
		}
		c.maxCalls = n
		return nil
	})
	fs.BoolVar(&c.sessions, "sessions", false, "serve --http: keep a session (Mcp-Session-Id) for each client that opens one, for one instance or sticky routing; without it every request stands alone, as a load-balanced fleet needs")
	fs.DurationVar(&c.shutdownGrace, "shutdown-grace", defaultShutdownGrace, "serve: on SIGTERM or SIGINT, or at the end of stdin, let the calls in flight finish for `DURATION`, then cancel them")
	fs.StringVar(&c.admin, "admin", "", "serve: answer /healthz, /readyz and Prometheus /metrics at `ADDR` (host:port, a bare :port on loopback, or unix:PATH), without a token")
	fs.BoolVar(&c.standardTools, "standard-tools", false, "serve: offer the standard tools (Read, Bash, ...) beside those of --tools, which otherwise go alone")
	fs.StringVar(&c.logFormat, "log-format", "", "serve: write logs to stderr in `FORMAT`: text (default) or json")
	fs.StringVar(&c.redisPasswordFile, "redis-password-file", "", "call, run, serve: the password of the --state store is the one line of `FILE` (mode 0600), kept out of ps (or set LUATOOL_REDIS_PASSWORD)")
}

// check refuses combinations that cannot mean what they say: the HTTP flags without
// --http, --insecure-no-auth beside --tokens, and authorization servers without
// tokens to check.
func (c *serveConfig) check(overHTTP bool) error {
	var errs []error
	if !overHTTP {
		for _, f := range []struct {
			name string
			set  bool
		}{{"tokens", c.tokens != ""}, {"auth-server", len(c.authServers) > 0}, {"allow-origin", len(c.allowOrigins) > 0}, {"insecure-no-auth", c.insecureNoAuth}, {"max-calls", c.maxCalls != 0}, {"sessions", c.sessions}} {
			if f.set {
				errs = append(errs, fmt.Errorf("--%s is for serving over HTTP (--http ADDR); over stdio the client is the local user", f.name))
			}
		}
		return errors.Join(errs...)
	}
	if c.insecureNoAuth && c.tokens != "" {
		errs = append(errs, errors.New("--insecure-no-auth and --tokens contradict each other: with tokens every client authenticates"))
	}
	if len(c.authServers) > 0 && c.tokens == "" {
		errs = append(errs, errors.New("--auth-server needs --tokens: without it the server checks no token, and clients need none"))
	}
	return errors.Join(errs...)
}

// checkHTTPURL checks an --auth-server URL: absolute, http or https.
func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL, like https://auth.example.com", s)
	}
	return nil
}

// parseOrigin checks an --allow-origin value, the scheme and host a browser sends
// in its Origin header, and returns it in lower case.
func parseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin: an origin is scheme://host[:port], like https://app.example.com, with no path", s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}
