package cli

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// jsonRecords parses each line of b as a log record, failing on any that is not.
func jsonRecords(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not a JSON object: %s", line)
		}
		recs = append(recs, rec)
	}
	return recs
}

// TestLogWriter: what the CLI prints on a JSON serve's stderr becomes records, one
// a line however the writes split it, at the level its prefix says.
func TestLogWriter(t *testing.T) {
	var out bytes.Buffer
	w := &logWriter{log: slog.New(slog.NewJSONHandler(&out, nil))}
	for _, part := range []string{"luatool: warning: half ", "a line\nluatool: error: bad\n", "plain\n\nluatool: notice", "\n"} {
		if n, err := w.Write([]byte(part)); n != len(part) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", part, n, err)
		}
	}
	var got []string
	for _, r := range jsonRecords(t, &out) {
		got = append(got, r["level"].(string)+" "+r["msg"].(string))
	}
	want := []string{"WARN half a line", "ERROR bad", "INFO plain", "INFO notice"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("records %q, want %q", got, want)
	}
}

// TestServeLoggerJSONErrors: with --log-format json, an error serve reports is one
// ERROR record, its lines kept in its message.
func TestServeLoggerJSONErrors(t *testing.T) {
	var out bytes.Buffer
	a := &app{stderr: &out}
	a.cfg.serve.logFormat = "json"
	a.envWarnings = []string{"LUATOOL_X names no flag"}
	defer slog.SetDefault(slog.Default())
	if _, err := a.serveLogger(); err != nil {
		t.Fatal(err)
	}
	if code := a.errorf("first\nsecond"); code != ExitUsage {
		t.Errorf("exit %d", code)
	}
	recs := jsonRecords(t, &out)
	if len(recs) != 2 || recs[0]["level"] != "WARN" || recs[1]["level"] != "ERROR" || recs[1]["msg"] != "first\nsecond" {
		t.Errorf("records %v", recs)
	}
}
