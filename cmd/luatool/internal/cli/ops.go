package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/luatool/luatool/cmd/luatool/internal/ops"
)

// serveMetrics makes serve's metrics when --admin will serve them, and returns the
// logger whose call lines feed them (log, wrapped) and the middleware that counts
// calls in flight in a.middleware. Without --admin it returns log and no metrics: no
// listener shows them, so nothing counts.
func (a *app) serveMetrics(log *slog.Logger) (*slog.Logger, *ops.Metrics) {
	if a.cfg.serve.admin == "" {
		return log, nil
	}
	m := ops.NewMetrics()
	a.middleware = append(a.middleware, m.Middleware())
	return slog.New(m.LogHandler(log.Handler())), m
}

// boundedServer is an HTTP server of h within serve's bounds (see headerTimeout),
// logging its errors to log.
func boundedServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// serveAdmin serves ep's /healthz, /readyz and /metrics at --admin, if given, until
// ctx ends. They need no token: the admin address is the operator's (loopback by
// default, or a network only monitoring reaches), and nothing there names a
// principal or carries a secret. It fails only if it cannot listen.
func (a *app) serveAdmin(ctx context.Context, ep *ops.Endpoints) error {
	addr := a.cfg.serve.admin
	if addr == "" {
		return nil
	}
	ln, err := listen(addr)
	if err != nil {
		return fmt.Errorf("--admin %s: %w", addr, err)
	}
	log := a.logger()
	mux := http.NewServeMux()
	ep.Admin(mux)
	hs := boundedServer(mux, log)
	where := "http://" + ln.Addr().String()
	if _, tcp := ln.Addr().(*net.TCPAddr); !tcp {
		where = "unix:" + ln.Addr().String()
	}
	log.Info("admin endpoints at "+where, "paths", ops.HealthPath+" "+ops.ReadyPath+" "+ops.MetricsPath, "authentication", "none: the admin address is for the operator's monitoring")
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	go func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin endpoints: " + err.Error())
		}
	}()
	return nil
}
