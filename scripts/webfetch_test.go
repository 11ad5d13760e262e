package scripts_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/client"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/netpolicy"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/scripts"
)

// The fixture server's page, as the ground truth's (groundtruth-newtools.md, webfetch).
const fixturePage = `<!doctype html><html><head><title>Fixture Page</title><style>p{}</style></head>
<body><h1>Fixture heading</h1><p>This is a <b>small</b> page with a <a href="/data.json">link to JSON</a>.</p>
<ul><li>first item</li><li>second item</li></ul><script>alert(1)</script></body></html>`

// largeParagraphs is the large page's size: about 450,000 characters of text.
const largeParagraphs = 7500

// namesResolver maps the fixture's names to the local server; the test certificate
// of httptest covers *.example.com.
type namesResolver struct{}

func (namesResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	switch host {
	case "docs.example.com", "other.example.com", "evil.example.com":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// webEnv is an engine with the standard tools whose http module reaches a local TLS
// server as docs.example.com and other.example.com (the host's allow list names
// both; evil.example.com resolves there too but is not named), and WebFetch allowed
// for docs.example.com.
type webEnv struct {
	t       *testing.T
	e       *engine.Engine
	srv     *httptest.Server
	port    string
	mu      sync.Mutex
	accepts []string // the Accept header of each request
	// summarized records what the summarizer was given.
	summarized []string
}

func newWebEnv(t *testing.T, summarize bool, allowed ...string) *webEnv {
	t.Helper()
	v := &webEnv{t: t}
	mux := http.NewServeMux()
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, fixturePage)
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name": "fixture", "items": [1, 2, 3], "nested": {"ok": true}}`)
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/ratelimit", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
	mux.HandleFunc("/redirect-other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://other.example.com:"+v.port+"/page.html", http.StatusFound)
	})
	mux.HandleFunc("/redirect-same", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page.html", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/large.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body><h1>Large page</h1>")
		for i := 1; i <= largeParagraphs; i++ {
			fmt.Fprintf(w, "<p>Paragraph %05d: lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n", i)
		}
		io.WriteString(w, "</body></html>")
	})
	mux.HandleFunc("/accents.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, strings.Repeat("é", 50000))
	})
	mux.HandleFunc("/huge.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := strings.Repeat("<p>x</p>", 8<<10)
		for n := 0; n <= hostmod.DefaultHTTPMaxBytes; n += len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n0123456789"))
	})
	v.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.mu.Lock()
		v.accepts = append(v.accepts, r.Header.Get("Accept"))
		v.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(v.srv.Close)
	u, _ := url.Parse(v.srv.URL)
	v.port = u.Port()

	roots := x509.NewCertPool()
	roots.AddCert(v.srv.Certificate())
	tlsConfig := v.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	tlsConfig.RootCAs = roots
	policy, err := netpolicy.NewPolicy(nil, []string{"docs.example.com", "other.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	mods, err := hostmod.StandardWith(hostmod.Options{Roots: []string{root}, HTTP: hostmod.HTTPOptions{Policy: policy, Resolver: namesResolver{}, TLS: tlsConfig}})
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Roots: []string{root}, ResultsDir: t.TempDir()}
	for _, r := range append([]string{"WebFetch(domain:docs.example.com)"}, allowed...) {
		opts.Permissions.Allow = append(opts.Permissions.Allow, rules.Rule{Text: r, Source: "--allow"})
	}
	if summarize {
		opts.Client = modelFunc(func(content, prompt string) string {
			v.mu.Lock()
			v.summarized = append(v.summarized, content)
			v.mu.Unlock()
			return fmt.Sprintf("ANSWER to %q from %d characters", prompt, utf8.RuneCountInString(content))
		})
	}
	if v.e, err = engine.New(opts); err != nil {
		t.Fatal(err)
	}
	for _, d := range v.e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()}) {
		if d.Severity != diag.SeverityNotice {
			t.Fatalf("load: %s", d)
		}
	}
	return v
}

// requests returns the Accept header of each request the server saw.
func (v *webEnv) requests() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.accepts...)
}

// model returns what the summarizer was given.
func (v *webEnv) model() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.summarized...)
}

// url is https://host:port/path on the server.
func (v *webEnv) url(host, path string) string { return "https://" + host + ":" + v.port + path }

// fetch calls WebFetch and returns the result.
func (v *webEnv) fetch(input map[string]any) *engine.Result {
	v.t.Helper()
	b, _ := json.Marshal(input)
	return v.e.Call(context.Background(), engine.ToolUse{ID: "toolu_wf", Name: "WebFetch", Input: b})
}

// text calls WebFetch, which must succeed, and returns the model's text.
func (v *webEnv) text(input map[string]any) string {
	v.t.Helper()
	r := v.fetch(input)
	if r.Block.IsError {
		v.t.Fatalf("WebFetch %v: %s", input, r.Block.Content)
	}
	return r.Block.Content.String()
}

func TestWebFetchHTMLToMarkdown(t *testing.T) {
	v := newWebEnv(t, false)
	got := v.text(map[string]any{"url": v.url("docs.example.com", "/page.html"), "prompt": "What is the heading of this page?"})
	want := `No model was available to answer the prompt, so this is the page itself, converted to Markdown; answer the prompt from it: "What is the heading of this page?"

---
# Fixture heading

This is a **small** page with a [link to JSON](https://docs.example.com:` + v.port + `/data.json).

- first item
- second item
---`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if a := v.requests(); len(a) != 1 || a[0] != "text/markdown, text/html, */*" {
		t.Errorf("requests' Accept: %q", a)
	}
}

// modelFunc is a host's model (engine.Options.Client) answering the content and
// the prompt of a summary (engine.CallContext.Summarize).
type modelFunc func(content, prompt string) string

func (m modelFunc) Log(context.Context, client.LogMessage) {}

func (m modelFunc) Elicit(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
	return nil, client.Unavailable("no user")
}

func (m modelFunc) Sample(_ context.Context, r *client.SamplingRequest) (*client.SamplingResult, error) {
	text := strings.TrimPrefix(r.Messages[0].Content.Text, "<content>\n")
	end := strings.LastIndex(text, "\n</content>\n\n")
	content, prompt := text[:end], text[end+len("\n</content>\n\n"):]
	return &client.SamplingResult{Role: "assistant", Model: "test",
		Content: client.Content{Type: "text", Text: m(content, prompt)}}, nil
}

// WebFetch asks the host's model about the page: a sampling request of the page
// and the prompt, whose answer is the result.
func TestWebFetchWithSummarizer(t *testing.T) {
	v := newWebEnv(t, true)
	got := v.text(map[string]any{"url": v.url("docs.example.com", "/page.html"), "prompt": "What is the heading of this page?"})
	if len(v.model()) != 1 || !strings.HasPrefix(v.model()[0], "# Fixture heading\n\nThis is a **small** page") {
		t.Fatalf("summarized %q", v.model())
	}
	if want := fmt.Sprintf("ANSWER to %q from %d characters", "What is the heading of this page?", utf8.RuneCountInString(v.model()[0])); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// JSON goes to the model as it came.
	v.text(map[string]any{"url": v.url("docs.example.com", "/data.json"), "prompt": "What are the items?"})
	if v.model()[1] != `{"name": "fixture", "items": [1, 2, 3], "nested": {"ok": true}}` {
		t.Errorf("JSON summarized as %q", v.model()[1])
	}
}

// failingModel is a host's model whose user declines every request.
type failingModel struct{ modelFunc }

func (failingModel) Sample(context.Context, *client.SamplingRequest) (*client.SamplingResult, error) {
	return nil, fmt.Errorf("%w: the user said no", client.ErrDeclined)
}

// A model that does not answer leaves the page itself as the answer, saying why.
func TestWebFetchWhenTheModelDoesNotAnswer(t *testing.T) {
	v := newWebEnv(t, true)
	v.e.Close()
	opts := v.e.Options()
	opts.Client = failingModel{}
	var err error
	if v.e, err = engine.New(opts); err != nil {
		t.Fatal(err)
	}
	v.e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()})
	got := v.text(map[string]any{"url": v.url("docs.example.com", "/page.html"), "prompt": "What is the heading?"})
	if !strings.HasPrefix(got, "The model could not answer the prompt (summarize: declined: the user said no), so this is the page itself") ||
		!strings.Contains(got, "# Fixture heading") {
		t.Errorf("got %s", got)
	}
}

func TestWebFetchJSON(t *testing.T) {
	v := newWebEnv(t, false)
	got := v.text(map[string]any{"url": v.url("docs.example.com", "/data.json"), "prompt": "What are the items?"})
	if !strings.Contains(got, "\n---\n"+`{"name": "fixture", "items": [1, 2, 3], "nested": {"ok": true}}`+"\n---") {
		t.Errorf("got %s", got)
	}
}

// The original's texts for HTTP errors, a redirect to another host, and http://.
func TestWebFetchOriginalTexts(t *testing.T) {
	v := newWebEnv(t, false)
	const notRetrieved = "The response body was not retrieved. If this URL requires authentication, use an authenticated tool (e.g. `gh` for GitHub, or an MCP-provided fetch tool) instead of WebFetch."
	for _, c := range []struct{ path, want string }{
		{"/missing", "The server returned HTTP 404 Not Found.\n\n" + notRetrieved},
		{"/ratelimit", "The server returned HTTP 429 Too Many Requests.\nRetry-After: 30\n\n" + notRetrieved},
		{"/redirect-other", `REDIRECT DETECTED: The URL redirects to a location that was not fetched automatically.

    Original URL: ` + v.url("docs.example.com", "/redirect-other") + `
    Redirect URL (from the server's Location header — server-supplied, not verified): ` + v.url("other.example.com", "/page.html") + `
    Status: 302 Found

    To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:
    - url: "` + v.url("other.example.com", "/page.html") + `"
    - prompt: "What is the heading of this page?"`},
	} {
		r := v.fetch(map[string]any{"url": v.url("docs.example.com", c.path), "prompt": "What is the heading of this page?"})
		if r.Block.IsError || r.Block.Content.String() != c.want {
			t.Errorf("%s: is_error %v\n%s\nwant\n%s", c.path, r.Block.IsError, r.Block.Content, c.want)
		}
	}
	// The other host was not asked.
	if n := len(v.requests()); n != 3 {
		t.Errorf("the server saw %d requests, want 3", n)
	}
	// A redirect to the same host is followed; http:// is fetched over TLS (the
	// server speaks nothing else).
	got := v.text(map[string]any{"url": "http://docs.example.com:" + v.port + "/redirect-same", "prompt": "p"})
	if !strings.Contains(got, "# Fixture heading") {
		t.Errorf("same-host redirect over http://: %s", got)
	}
}

func TestWebFetchLongPages(t *testing.T) {
	v := newWebEnv(t, true)
	u := v.url("docs.example.com", "/large.html")
	got := v.text(map[string]any{"url": u, "prompt": "How many paragraphs?"})
	total := utf8.RuneCountInString(v.model()[0]) - len("\n\n[Content truncated due to length...]")
	if total != 100000 || !strings.HasSuffix(v.model()[0], "\n\n[Content truncated due to length...]") {
		t.Fatalf("the model was given %d characters: ...%q", total, v.model()[0][len(v.model()[0])-60:])
	}
	var pageChars int
	if _, err := fmt.Sscanf(got[strings.Index(got, "[WebFetch note: this page's text is ")+len("[WebFetch note: this page's text is "):], "%d", &pageChars); err != nil || pageChars < 400000 {
		t.Fatalf("note: %s (%v)", got, err)
	}
	note := func(what string, first, last int) string {
		return fmt.Sprintf("\n\n[WebFetch note: this page's text is %d characters long and the %s above covers only characters %d to %d; the final %d were not read — to read on, call WebFetch again with the same url and offset: %d.]",
			pageChars, what, first, last, pageChars-last, last)
	}
	if !strings.HasSuffix(got, note("answer", 0, 100000)) {
		t.Errorf("got %s", got)
	}
	got = v.text(map[string]any{"url": u, "prompt": "Next part", "offset": 100000})
	if !strings.HasSuffix(got, note("answer", 100000, 200000)) ||
		!strings.HasPrefix(v.model()[1], fmt.Sprintf("The content below is one part of a longer page: it starts 100000 characters into the page's %d.\n\n", pageChars)) {
		t.Errorf("offset 100000: %s\nmodel given %.200q", got, v.model()[1])
	}

	// Without a model, the window fits the result limit: nothing is persisted.
	plain := newWebEnv(t, false)
	r := plain.fetch(map[string]any{"url": plain.url("docs.example.com", "/large.html"), "prompt": "How many paragraphs?"})
	if r.Block.IsError || r.PersistedPath != "" || !strings.HasSuffix(r.Block.Content.String(), note("text", 0, 45000)) {
		t.Errorf("without a model: persisted %q, ...%s", r.PersistedPath, tail(r.Block.Content.String(), 300))
	}
	// Offsets count characters, not bytes.
	r = plain.fetch(map[string]any{"url": plain.url("docs.example.com", "/accents.txt"), "prompt": "p", "offset": 10})
	body := r.Block.Content.String()
	part := body[strings.Index(body, "\n---\n")+5 : strings.LastIndex(body, "\n---")]
	if part != strings.Repeat("é", 45000) || !strings.Contains(body, "characters 10 to 45010; the final 4990 were not read") {
		t.Errorf("accents: %d characters, ...%s", utf8.RuneCountInString(part), tail(body, 200))
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func TestWebFetchRefusals(t *testing.T) {
	v := newWebEnv(t, false, "WebFetch(domain:evil.example.com)")
	for _, c := range []struct {
		url, want string
	}{
		// Over the body cap.
		{v.url("docs.example.com", "/huge.html"), "the response body of " + v.url("docs.example.com", "/huge.html") + " is over the cap of 10 MiB (maxBytes = 10485760)"},
		// Permitted, but the name resolves to a loopback address the host does not name.
		{v.url("evil.example.com", "/page.html"), "evil.example.com resolves to 127.0.0.1, which is a loopback address"},
	} {
		r := v.fetch(map[string]any{"url": c.url, "prompt": "p"})
		if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), c.want) {
			t.Errorf("%s: %s", c.url, r.Block.Content)
		}
	}
	// Without a permission for the host, nothing is fetched and the rule is named.
	before := len(v.requests())
	r := v.fetch(map[string]any{"url": v.url("other.example.com", "/page.html"), "prompt": "p"})
	if !r.Block.IsError || r.Stage != engine.StagePermission || !strings.Contains(r.Block.Content.String(), "WebFetch(domain:other.example.com)") {
		t.Errorf("no permission: %s (stage %s)", r.Block.Content, r.Stage)
	}
	if len(v.requests()) != before {
		t.Error("a host without permission was asked")
	}
	// Binary content is not shown.
	got := v.text(map[string]any{"url": v.url("docs.example.com", "/image.png"), "prompt": "p"})
	if got != "The URL returned image/png content (18 bytes), which WebFetch does not show: it reads text and web pages only." {
		t.Errorf("image: %s", got)
	}
}
