package tests

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/luatool/luatool/session/redisstore/redistest"
)

// An instance serving --http with --tokens, a Redis --state and --admin answers
// /healthz and /readyz without a token on both listeners, and /metrics on the admin
// one only. /readyz goes unready when Redis stops and ready when it is back; a scrape
// parses as Prometheus's text format, counts the calls by tool and outcome with their
// durations and the reloads, and names no principal and no token.
func TestOpsEndpoints(t *testing.T) {
	redis := redistest.Start(t)
	s := newMCPDirs(t)
	tokens := filepath.Join(authConf(t), "tokens.txt")
	endpoint := startHTTP(t, s, "--tokens", tokens, "--state", redis.URL, "--admin", "127.0.0.1:0")
	admin := adminAddress(t, s)
	serving := strings.TrimSuffix(endpoint, "/mcp")

	for _, u := range []string{serving + "/healthz", serving + "/readyz", admin + "/healthz", admin + "/readyz"} {
		if code, body := get(t, u); code != http.StatusOK {
			t.Errorf("GET %s without a token: %d %q", u, code, body)
		}
	}
	if code, _ := get(t, endpoint); code != http.StatusUnauthorized {
		t.Errorf("GET /mcp without a token: %d, want 401: the health endpoints open nothing else", code)
	}
	if code, _ := get(t, serving+"/metrics"); code != http.StatusNotFound {
		t.Errorf("GET /metrics on the serving listener: %d, want 404: metrics are on --admin only", code)
	}

	alice := clientAs(t, endpoint, aliceToken, nil)
	notes := filepath.Join(s.root, "notes.txt")
	if res := callOn(t, alice, "Read", map[string]any{"file_path": notes}); res.IsError {
		t.Fatalf("Read: %q", text(res))
	}
	callOn(t, alice, "Read", map[string]any{"file_path": notes})
	if res := callOn(t, alice, "Read", map[string]any{}); !res.IsError {
		t.Fatalf("Read without file_path succeeded: %q", text(res))
	}

	raw, fams := scrape(t, admin)
	if got := counter(fams, "luatool_tool_calls_total", "tool", "Read", "outcome", "ok"); got != 2 {
		t.Errorf(`luatool_tool_calls_total{tool="Read",outcome="ok"} = %v, want 2`, got)
	}
	if got := counter(fams, "luatool_tool_calls_total", "tool", "Read", "outcome", "invalid"); got != 1 {
		t.Errorf(`luatool_tool_calls_total{tool="Read",outcome="invalid"} = %v, want 1`, got)
	}
	if h := metric(fams, "luatool_tool_call_duration_seconds", "tool", "Read").GetHistogram(); h.GetSampleCount() != 3 || h.GetSampleSum() <= 0 {
		t.Errorf("Read's duration histogram: count %d sum %v, want 3 calls taking some time", h.GetSampleCount(), h.GetSampleSum())
	}
	if got := gauge(fams, "luatool_store_up"); got != 1 {
		t.Errorf("luatool_store_up = %v with Redis running", got)
	}
	for _, secret := range []string{"alice", aliceToken} {
		if strings.Contains(raw, secret) {
			t.Errorf("the scrape contains %q: metrics name no principal and carry no token", secret)
		}
	}

	// A tool file saved while serving is a reload; a broken one is a load error.
	writeFile(t, filepath.Join(s.tools, "fresh.lua"), `return {name = "Fresh", prompt = "Answers ok.", inputSchema = {type = "object"}, call = function() return "ok" end}`)
	writeFile(t, filepath.Join(s.tools, "broken.lua"), `return {name = `)
	waitFor(t, "a reload and a load error counted", func() string {
		_, fams := scrape(t, admin)
		if counter(fams, "luatool_reload_changes_total", "change", "added") < 1 || counter(fams, "luatool_load_errors_total") < 1 {
			return "no added tool or no load error in the scrape"
		}
		return ""
	})

	stopped := time.Now()
	redis.Stop()
	waitFor(t, "/readyz unready with Redis stopped", func() string {
		if code, body := get(t, admin+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "session store") {
			return fmt.Sprintf("%d %q", code, body)
		}
		return ""
	})
	t.Logf("/readyz unready %v after Redis stopped", time.Since(stopped).Round(time.Millisecond))
	if code, _ := get(t, serving+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("the serving listener's /readyz with Redis stopped: %d", code)
	}
	if code, _ := get(t, admin+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz with Redis stopped: %d: the process is alive", code)
	}
	if _, fams := scrape(t, admin); gauge(fams, "luatool_store_up") != 0 || counter(fams, "luatool_store_errors_total") < 1 {
		t.Errorf("with Redis stopped: luatool_store_up %v, luatool_store_errors_total %v", gauge(fams, "luatool_store_up"), counter(fams, "luatool_store_errors_total"))
	}
	redis.Restart()
	restarted := time.Now()
	waitFor(t, "/readyz ready again with Redis back", func() string {
		if code, body := get(t, admin+"/readyz"); code != http.StatusOK {
			return fmt.Sprintf("%d %q", code, body)
		}
		return ""
	})
	t.Logf("/readyz ready %v after Redis was back", time.Since(restarted).Round(time.Millisecond))
	if _, fams := scrape(t, admin); gauge(fams, "luatool_store_up") != 1 {
		t.Errorf("luatool_store_up = %v with Redis back", gauge(fams, "luatool_store_up"))
	}
}

// adminAddress is the http:// address the server said its admin endpoints are at.
func adminAddress(t *testing.T, s *mcpServer) string {
	t.Helper()
	m := regexp.MustCompile(`admin endpoints at (http://[^\s"]+)`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("the server never said where its admin endpoints are:\n%s", s.stderr)
	}
	return m[1]
}

// get fetches u without a token.
func get(t *testing.T, u string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// scrape fetches admin's /metrics in the text format and parses it with the
// Prometheus library's own parser.
func scrape(t *testing.T, admin string) (string, map[string]*dto.MetricFamily) {
	t.Helper()
	code, body := get(t, admin+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %q", code, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("the scrape does not parse: %v\n%s", err, body)
	}
	return body, fams
}

// metric is the metric of the family name whose labels include the pairs given; nil
// when there is none.
func metric(fams map[string]*dto.MetricFamily, name string, pairs ...string) *dto.Metric {
	for _, m := range fams[name].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for i := 0; i+1 < len(pairs); i += 2 {
			match = match && labels[pairs[i]] == pairs[i+1]
		}
		if match {
			return m
		}
	}
	return nil
}

func counter(fams map[string]*dto.MetricFamily, name string, pairs ...string) float64 {
	return metric(fams, name, pairs...).GetCounter().GetValue()
}

func gauge(fams map[string]*dto.MetricFamily, name string, pairs ...string) float64 {
	return metric(fams, name, pairs...).GetGauge().GetValue()
}
