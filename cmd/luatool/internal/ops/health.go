package ops

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/session"
)

// Paths of the endpoints.
const (
	HealthPath  = "/healthz"
	ReadyPath   = "/readyz"
	MetricsPath = "/metrics"
)

// DefaultProbeTimeout bounds a probe of the session store when Endpoints gives none:
// a load balancer's check must get its answer sooner than its own timeout.
const DefaultProbeTimeout = time.Second

// A Pinger is a session store that can say whether it answers, at the cost of one
// round trip. A store without Ping is probed by reading one key.
type Pinger interface {
	Ping(ctx context.Context) error
}

// probeSession is the session a store without Ping is probed by reading a key of:
// one no principal has (principals' keys never start with a slash).
const probeSession = "/luatool-readiness"

// Endpoints answers /healthz, /readyz and /metrics for one serving process. None of
// them needs a token: they tell whether the process is alive and ready, and the
// metrics (on the admin listener only) name tools, never principals or secrets.
type Endpoints struct {
	// Engine serves the tools: ready once it has loaded at least one.
	Engine *engine.Engine
	// Store is the session store, probed for readiness; nil for the engine's memory,
	// which is always reachable.
	Store session.Store
	// Metrics, if set, records each probe and is served at MetricsPath by Admin.
	Metrics *Metrics
	// ProbeTimeout bounds a probe of Store; zero means DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// Stopping, when closed, says the process is shutting down: it is no longer
	// ready, so that a load balancer sends no new calls while the last ones finish.
	Stopping <-chan struct{}
}

// Errors Ready returns: what is missing, worded for an operator.
var (
	ErrNoTools          = errors.New("no tools are loaded")
	ErrStopping         = errors.New("the server is shutting down")
	ErrStoreUnreachable = errors.New("the session store does not answer")
)

// Ready reports whether the process can serve calls: it is not shutting down, tools
// are loaded and the session store answers within the probe timeout.
func (e *Endpoints) Ready(ctx context.Context) error {
	select {
	case <-e.Stopping:
		return ErrStopping
	default:
	}
	if len(e.Engine.Registry().Tools()) == 0 {
		return ErrNoTools
	}
	if err := e.probeStore(ctx); err != nil {
		return ErrStoreUnreachable
	}
	return nil
}

// probeStore asks the store for one round trip, recording it in the metrics.
func (e *Endpoints) probeStore(ctx context.Context) error {
	if e.Store == nil {
		if e.Metrics != nil {
			e.Metrics.storeUp.Set(1) // memory: nothing to time
		}
		return nil
	}
	timeout := e.ProbeTimeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	var err error
	if p, ok := e.Store.(Pinger); ok {
		err = p.Ping(ctx)
	} else {
		_, err = e.Store.Get(ctx, probeSession, session.State, "probe")
	}
	if e.Metrics != nil {
		e.Metrics.observeStore(time.Since(start), err)
	}
	return err
}

// Health registers /healthz and /readyz on mux: what a load balancer checks on the
// serving listener.
func (e *Endpoints) Health(mux *http.ServeMux) {
	mux.HandleFunc("GET "+HealthPath, func(w http.ResponseWriter, _ *http.Request) {
		answer(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET "+ReadyPath, func(w http.ResponseWriter, r *http.Request) {
		if err := e.Ready(r.Context()); err != nil {
			answer(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
			return
		}
		answer(w, http.StatusOK, "ready")
	})
}

// Admin registers /healthz, /readyz and, with Metrics, /metrics on mux: the admin
// listener's endpoints. A scrape probes the store first, so that luatool_store_up
// is as fresh as the scrape.
func (e *Endpoints) Admin(mux *http.ServeMux) {
	e.Health(mux)
	if e.Metrics == nil {
		return
	}
	metrics := e.Metrics.handler()
	mux.HandleFunc("GET "+MetricsPath, func(w http.ResponseWriter, r *http.Request) {
		e.probeStore(r.Context())
		metrics.ServeHTTP(w, r)
	})
}

// answer writes a one-line plain-text answer that no cache keeps.
func answer(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write([]byte(text + "\n"))
}
