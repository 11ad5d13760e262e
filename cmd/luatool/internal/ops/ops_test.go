package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/netpolicy"
	"github.com/luatool/luatool/session"
)

// value is the value of the metric name whose labels are the pairs given (a
// counter's, a gauge's, or a histogram's count), and whether there is one.
func value(t *testing.T, m *Metrics, name string, pairs ...string) (float64, bool) {
	t.Helper()
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, mt := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range mt.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for i := 0; i+1 < len(pairs); i += 2 {
				if labels[pairs[i]] != pairs[i+1] {
					continue metrics
				}
			}
			switch {
			case mt.Counter != nil:
				return mt.GetCounter().GetValue(), true
			case mt.Gauge != nil:
				return mt.GetGauge().GetValue(), true
			case mt.Histogram != nil:
				return float64(mt.GetHistogram().GetSampleCount()), true
			}
		}
	}
	return 0, false
}

// Call lines are counted by tool and outcome, with their durations, sandbox
// refusals and asks, even where the log drops them; the principal is no label, and
// every record still reaches the handler below when it wants it.
func TestLogHandlerCountsCallLines(t *testing.T) {
	m := NewMetrics()
	var out bytes.Buffer
	log := slog.New(m.LogHandler(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))).With("principal", "alice")
	log.Info("tool call", "tool", "Read", "duration", 2*time.Millisecond, "outcome", "ok")
	log.Info("tool call", "tool", "Read", "duration", 3*time.Millisecond, "outcome", "ok")
	log.Info("tool call", "tool", "Edit", "duration", time.Millisecond, "outcome", "asked")
	log.Warn("tool call", "tool", "Fetch", "duration", time.Millisecond, "outcome", "error", "stage", engine.StageCall,
		"error", fmt.Errorf("fetching: %w", &netpolicy.DeniedError{Host: "evil.example"}))
	log.Warn("tool call", "tool", "Hog", "duration", time.Millisecond, "outcome", "error", "error", fmt.Errorf("stopped: %w", bindings.ErrMemoryLimit))
	log.Info("tool list", "added", "[Read]")

	for _, c := range []struct {
		name  string
		pairs []string
		want  float64
	}{
		{"luatool_tool_calls_total", []string{"tool", "Read", "outcome", "ok"}, 2},
		{"luatool_tool_calls_total", []string{"tool", "Edit", "outcome", "asked"}, 1},
		{"luatool_tool_calls_total", []string{"tool", "Fetch", "outcome", "error"}, 1},
		{"luatool_tool_call_duration_seconds", []string{"tool", "Read"}, 2},
		{"luatool_permission_asks_total", []string{"tool", "Edit"}, 1},
		{"luatool_sandbox_refusals_total", []string{"tool", "Fetch", "kind", "network"}, 1},
		{"luatool_sandbox_refusals_total", []string{"tool", "Hog", "kind", "memory"}, 1},
	} {
		if got, _ := value(t, m, c.name, c.pairs...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.pairs, got, c.want)
		}
	}
	if _, ok := value(t, m, "luatool_sandbox_refusals_total", "tool", "Read"); ok {
		t.Error("a call that ended well counted as a sandbox refusal")
	}
	fams, _ := m.reg.Gather()
	for _, f := range fams {
		for _, mt := range f.GetMetric() {
			for _, l := range mt.GetLabel() {
				if l.GetName() == "principal" || l.GetValue() == "alice" {
					t.Errorf("%s carries the principal: %v", f.GetName(), mt.GetLabel())
				}
			}
		}
	}
	if got := out.String(); strings.Contains(got, "outcome=ok") || !strings.Contains(got, "Fetch") || !strings.Contains(got, "principal=alice") {
		t.Errorf("the log below: the Info lines it drops, the Warn lines with their attributes, got:\n%s", got)
	}
}

// The middleware counts a call while its tool code runs, and not after.
func TestMiddlewareCountsCallsInFlight(t *testing.T) {
	m := NewMetrics()
	var during float64
	probe, err := engine.TypedTool[struct{}, string]{
		Name: "Probe", Prompt: "Reports.", ReadOnly: true,
		Call: func(context.Context, struct{}, *engine.CallContext) (string, error) {
			during, _ = value(t, m, "luatool_tool_calls_in_flight")
			return "ok", nil
		},
	}.Def()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Tools: []engine.ToolDef{probe}, Cwd: t.TempDir(), Middleware: []hooks.Middleware{m.Middleware()}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Probe", Input: []byte(`{}`)}); r.Block.IsError {
		t.Fatalf("Probe: %s", r.Block.Content.String())
	}
	after, _ := value(t, m, "luatool_tool_calls_in_flight")
	if during != 1 || after != 0 {
		t.Errorf("calls in flight: %v during the call, %v after; want 1 and 0", during, after)
	}
}

// Reloads count their changes, and a failed file a load error; watch notices count
// nothing.
func TestObserveCountsReloads(t *testing.T) {
	m := NewMetrics()
	for _, k := range []engine.EventKind{engine.ToolAdded, engine.ToolUpdated, engine.ToolUpdated, engine.LoadFailed, engine.WatchStatus} {
		m.Observe(engine.Event{Kind: k})
	}
	if got, _ := value(t, m, "luatool_reload_changes_total", "change", "updated"); got != 2 {
		t.Errorf("updated: %v, want 2", got)
	}
	if got, _ := value(t, m, "luatool_load_errors_total"); got != 1 {
		t.Errorf("load errors: %v, want 1", got)
	}
	if _, ok := value(t, m, "luatool_reload_changes_total", "change", "watch"); ok {
		t.Error("a watch notice counted as a change")
	}
}

// store is a session store whose reads fail with err, or wait for their context
// to end when hang is set.
type store struct {
	err  error
	hang bool
}

func (s *store) Get(ctx context.Context, _ string, _ session.Bucket, _ string) ([]byte, error) {
	if s.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, s.err
}

func (s *store) Put(context.Context, string, session.Bucket, string, []byte) error {
	return errors.New("the probe writes nothing")
}

func (s *store) List(context.Context, string, session.Bucket) (map[string][]byte, error) {
	return nil, errors.New("the probe lists nothing")
}

func (s *store) CompareAndPut(context.Context, string, session.Bucket, string, []byte, []byte) (bool, error) {
	return false, errors.New("the probe writes nothing")
}

// pinger is a store that answers Ping with err, and whose reads fail.
type pinger struct {
	store
	pings int
}

func (p *pinger) Ping(context.Context) error {
	p.pings++
	return p.store.err
}

// Ready needs a tool and a store that answers, within the probe's time; each probe
// moves the store metrics.
func TestReady(t *testing.T) {
	def, err := engine.TypedTool[struct{}, string]{Name: "T", Prompt: "p", ReadOnly: true,
		Call: func(context.Context, struct{}, *engine.CallContext) (string, error) { return "", nil }}.Def()
	if err != nil {
		t.Fatal(err)
	}
	withTool, err := engine.New(engine.Options{Tools: []engine.ToolDef{def}, Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer withTool.Close()
	empty, err := engine.New(engine.Options{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	down := errors.New("connection refused")
	ping := &pinger{store: store{err: down}}
	for _, c := range []struct {
		name string
		e    Endpoints
		want error
		up   float64
	}{
		{"memory", Endpoints{Engine: withTool}, nil, 1},
		{"no tools", Endpoints{Engine: empty}, ErrNoTools, 0},
		{"store answers", Endpoints{Engine: withTool, Store: &store{}}, nil, 1},
		{"store down", Endpoints{Engine: withTool, Store: &store{err: down}}, ErrStoreUnreachable, 0},
		{"store hangs", Endpoints{Engine: withTool, Store: &store{hang: true}, ProbeTimeout: 10 * time.Millisecond}, ErrStoreUnreachable, 0},
		{"Ping down", Endpoints{Engine: withTool, Store: ping}, ErrStoreUnreachable, 0},
		{"Ping up", Endpoints{Engine: withTool, Store: &pinger{store: store{err: nil, hang: true}}}, nil, 1},
	} {
		c.e.Metrics = NewMetrics()
		if got := c.e.Ready(context.Background()); !errors.Is(got, c.want) {
			t.Errorf("%s: Ready = %v, want %v", c.name, got, c.want)
		}
		if c.want == ErrNoTools {
			continue
		}
		up, _ := value(t, c.e.Metrics, "luatool_store_up")
		errs, _ := value(t, c.e.Metrics, "luatool_store_errors_total")
		if wantErrs := 1 - c.up; up != c.up || errs != wantErrs {
			t.Errorf("%s: store_up %v, store_errors_total %v; want %v and %v", c.name, up, errs, c.up, wantErrs)
		}
	}
	if ping.pings != 1 {
		t.Errorf("a store with Ping was pinged %d times, want 1", ping.pings)
	}

	// Once the process is stopping it is not ready, whatever else holds, and asks
	// the store nothing.
	stopping := make(chan struct{})
	close(stopping)
	pinged := ping.pings
	if got := (&Endpoints{Engine: withTool, Store: ping, Stopping: stopping}).Ready(context.Background()); !errors.Is(got, ErrStopping) || ping.pings != pinged {
		t.Errorf("Ready while stopping = %v (store pinged %d more times)", got, ping.pings-pinged)
	}
}

// The serving listener gets /healthz and /readyz; the admin listener /metrics too.
func TestHandlers(t *testing.T) {
	empty, err := engine.New(engine.Options{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	e := &Endpoints{Engine: empty, Metrics: NewMetrics()}
	serving, admin := http.NewServeMux(), http.NewServeMux()
	e.Health(serving)
	e.Admin(admin)
	for _, c := range []struct {
		mux  *http.ServeMux
		path string
		code int
		body string
	}{
		{serving, HealthPath, 200, "ok"},
		{serving, ReadyPath, 503, "not ready: no tools are loaded"},
		{serving, MetricsPath, 404, ""},
		{admin, HealthPath, 200, "ok"},
		{admin, MetricsPath, 200, "luatool_store_up 1"},
	} {
		w := httptest.NewRecorder()
		c.mux.ServeHTTP(w, httptest.NewRequest("GET", c.path, nil))
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.body) {
			t.Errorf("GET %s: %d %q, want %d with %q", c.path, w.Code, w.Body.String(), c.code, c.body)
		}
	}
}
