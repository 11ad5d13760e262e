// Package ops is what an operator of luatool serve watches: whether the process is
// alive and ready to serve (/healthz, /readyz) and its Prometheus metrics
// (/metrics). The metrics are fed by what the engine and the MCP server already
// report: the line logged for each call (LogHandler), a middleware around the
// tools' code (Middleware), the engine's events (Observe) and the readiness probe
// of the session store; nothing in the engine calls this package.
//
// No metric is labelled by principal, and none carries a token or a secret: the
// labels are tool names, outcomes and kinds, bounded by the tools loaded.
package ops

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/netpolicy"
)

// Metrics are the Prometheus metrics of one serving process, in a registry of
// their own (not the client library's global one) with the Go runtime's and the
// process's collectors.
type Metrics struct {
	reg           *prometheus.Registry
	calls         *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	inFlight      prometheus.Gauge
	changes       *prometheus.CounterVec
	loadErrors    prometheus.Counter
	storeUp       prometheus.Gauge
	storeDuration prometheus.Histogram
	storeErrors   prometheus.Counter
	refusals      *prometheus.CounterVec
	asks          *prometheus.CounterVec
}

// NewMetrics registers the metrics in a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luatool_tool_calls_total",
			Help: "Tool calls served, by tool and outcome (ok, error, invalid, denied, cancelled, asked, refused).",
		}, []string{"tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "luatool_tool_call_duration_seconds",
			Help:    "How long tool calls took, from the request to the answer, by tool.",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 30, 120},
		}, []string{"tool"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "luatool_tool_calls_in_flight",
			Help: "Tool calls whose tool code is running now (past the permission step).",
		}),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luatool_reload_changes_total",
			Help: "Changes a reload brought while serving, by change (added, updated, removed, hook ..., module ...).",
		}, []string{"change"}),
		loadErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "luatool_load_errors_total",
			Help: "Files that failed to load while serving (the last good version kept serving).",
		}),
		storeUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "luatool_store_up",
			Help: "Whether the session store answered its last probe (1) or not (0).",
		}),
		storeDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "luatool_store_probe_duration_seconds",
			Help:    "How long probes of the session store took, failed ones included (at each scrape and each /readyz).",
			Buckets: []float64{.0005, .001, .005, .01, .05, .1, .5, 1},
		}),
		storeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "luatool_store_errors_total",
			Help: "Probes the session store failed or did not answer in time.",
		}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luatool_sandbox_refusals_total",
			Help: "Calls the sandbox stopped, by tool and kind (network: a host the policy refuses; memory: the memory limit).",
		}, []string{"tool", "kind"}),
		asks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luatool_permission_asks_total",
			Help: "Calls whose approval was asked of the client's user, by tool; the answer is the outcome of the call's second round.",
		}, []string{"tool"}),
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.calls, m.duration, m.inFlight, m.changes, m.loadErrors, m.storeUp, m.storeDuration, m.storeErrors, m.refusals, m.asks)
	return m
}

// handler serves the metrics in the exposition formats Prometheus negotiates.
func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Middleware counts the calls whose tool code runs, while it runs: an engine
// middleware wraps steps after the permission step (engine.Options.Middleware).
func (m *Metrics) Middleware() hooks.Middleware {
	return func(next hooks.CallHandler) hooks.CallHandler {
		return func(ctx context.Context, c *hooks.Call) hooks.Decision {
			m.inFlight.Inc()
			defer m.inFlight.Dec()
			return next(ctx, c)
		}
	}
}

// Observe counts an engine event (give it to engine.Engine.Subscribe): the changes
// a reload brought, and the files that failed to load.
func (m *Metrics) Observe(ev engine.Event) {
	switch ev.Kind {
	case engine.WatchStatus:
	case engine.LoadFailed:
		m.loadErrors.Inc()
	default:
		m.changes.WithLabelValues(string(ev.Kind)).Inc()
	}
}

// observeStore records one probe of the session store.
func (m *Metrics) observeStore(took time.Duration, err error) {
	m.storeDuration.Observe(took.Seconds())
	if err != nil {
		m.storeErrors.Inc()
		m.storeUp.Set(0)
		return
	}
	m.storeUp.Set(1)
}

// observeCall records the line the MCP server logged for one call.
func (m *Metrics) observeCall(tool, outcome string, took time.Duration, err error) {
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.duration.WithLabelValues(tool).Observe(took.Seconds())
	if outcome == "asked" {
		m.asks.WithLabelValues(tool).Inc()
	}
	if kind := refusal(err); kind != "" {
		m.refusals.WithLabelValues(tool, kind).Inc()
	}
}

// refusal names the kind of sandbox refusal that ended a call, "" for none.
func refusal(err error) string {
	var denied *netpolicy.DeniedError
	var special *netpolicy.SpecialAddressError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &denied), errors.As(err, &special):
		return "network"
	case errors.Is(err, bindings.ErrMemoryLimit):
		return "memory"
	}
	return ""
}
