package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/internal/extdata"
	"github.com/luatool/luatool/internal/syncbuf"
)

// requirePrometheus is the variable that, set to 1, makes a missing prometheus fail
// TestPrometheusScrapes rather than skip it.
const requirePrometheus = "LUATOOL_REQUIRE_PROMETHEUS"

// A real Prometheus (Debian's) scrapes --admin's /metrics: the target is up, and a
// query answers the calls made, by tool and outcome; promtool finds nothing to lint. Its first scrape comes some
// seconds after it starts (it syncs targets on a 5 s tick), the cost of this test.
func TestPrometheusScrapes(t *testing.T) {
	bin := extdata.Program(t, "prometheus", requirePrometheus, "on Debian: apt-get install -y prometheus")
	s := newMCPDirs(t)
	endpoint := startHTTP(t, s, "--admin", "127.0.0.1:0", "--insecure-no-auth")
	admin := adminAddress(t, s)
	client := clientAs(t, endpoint, "", nil)
	for range 3 {
		callOn(t, client, "Echo", map[string]any{"text": "hi"})
	}

	// promtool, of the same package, lints the names, types and help texts.
	if promtool, err := exec.LookPath("promtool"); err == nil {
		raw, _ := scrape(t, admin)
		lint := exec.Command(promtool, "check", "metrics")
		lint.Stdin = strings.NewReader(raw)
		if out, err := lint.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}

	dir := t.TempDir()
	target := strings.TrimPrefix(admin, "http://")
	config := fmt.Sprintf("global: {scrape_interval: 1s, scrape_timeout: 900ms}\nscrape_configs:\n  - job_name: luatool\n    static_configs: [{targets: [%q]}]\n", target)
	writeFile(t, filepath.Join(dir, "prometheus.yml"), config)
	web := freeAddress(t)
	var log syncbuf.Buffer
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+web, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus's log:\n%s", log.String())
		}
	})
	started := time.Now()
	query := func(q string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+web+"/api/v1/query?query="+url.QueryEscape(q), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "" // not listening yet
		}
		defer resp.Body.Close()
		var answer struct {
			Data struct {
				Result []struct {
					Value [2]any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&answer) != nil || len(answer.Data.Result) != 1 {
			return ""
		}
		v, _ := answer.Data.Result[0].Value[1].(string)
		return v
	}
	waitFor(t, "Prometheus's first scrape", func() string {
		if v := query(`up{job="luatool"}`); v != "1" {
			return fmt.Sprintf("up = %q", v)
		}
		return ""
	})
	t.Logf("first scrape %v after Prometheus started", time.Since(started).Round(100*time.Millisecond))
	if v := query(`luatool_tool_calls_total{tool="Echo",outcome="ok"}`); v != "3" {
		t.Errorf(`Prometheus says luatool_tool_calls_total{tool="Echo",outcome="ok"} = %q, want "3"`, v)
	}
	if v := query(`luatool_tool_call_duration_seconds_count{tool="Echo"}`); v != "3" {
		t.Errorf(`Prometheus says luatool_tool_call_duration_seconds_count{tool="Echo"} = %q, want "3"`, v)
	}
}

// freeAddress is a loopback address with a port free a moment ago, for a server that
// takes no port 0.
func freeAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
