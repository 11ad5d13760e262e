package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// requireHAProxyEnv, set to 1 (in CI, which installs haproxy), makes the check of
// deploy/haproxy.cfg fail rather than skip when haproxy is missing.
const requireHAProxyEnv = "LUATOOL_REQUIRE_HAPROXY"

// serveVariables are the LUATOOL_ variables serve reads: one for each flag of its
// help (the rule of the README's Configuration by environment), and the store's
// password.
func serveVariables(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command(luatoolBinary(t), "help", "serve").Output()
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]bool{"LUATOOL_REDIS_PASSWORD": true}
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z-]+)`).FindAllStringSubmatch(string(out), -1) {
		vars["LUATOOL_"+strings.ToUpper(strings.ReplaceAll(m[1], "-", "_"))] = true
	}
	if !vars["LUATOOL_STATE"] || !vars["LUATOOL_TOKENS"] {
		t.Fatalf("no --state or --tokens in luatool help serve:\n%s", out)
	}
	return vars
}

// TestDeployVariablesAreFlags: every LUATOOL_ variable the Dockerfile, the fleet
// example and the README's sections on configuration and deployment set stands for
// a flag of serve, so that none is silently ignored.
func TestDeployVariablesAreFlags(t *testing.T) {
	vars := serveVariables(t)
	texts := map[string]string{"Dockerfile": mustRead(t, "../Dockerfile"), "deploy/compose.yaml": mustRead(t, "../deploy/compose.yaml")}
	for _, section := range strings.Split(mustRead(t, "../README.md"), "\n## ") {
		heading, _, _ := strings.Cut(section, "\n")
		if heading == "Configuration by environment" || heading == "Deployment" {
			texts["README.md: "+heading] = section
		}
	}
	if len(texts) != 4 {
		t.Errorf("the README's sections Configuration by environment and Deployment: %d of 2 found", len(texts)-2)
	}
	re := regexp.MustCompile(`LUATOOL_[A-Z_]+[A-Z]`)
	for where, text := range texts {
		for _, v := range re.FindAllString(text, -1) {
			if !vars[v] && !strings.HasPrefix(v, "LUATOOL_REQUIRE_") { // the tests' own switches
				t.Errorf("%s: %s stands for no flag of serve", where, v)
			}
		}
	}
}

// TestDockerfileRecipe: the image is a static binary run as a user that is not
// root, as PID 1 (the exec form), with a health check on /healthz.
func TestDockerfileRecipe(t *testing.T) {
	df := mustRead(t, "../Dockerfile")
	for _, want := range []string{
		`RUN CGO_ENABLED=0 go build `,
		"\nUSER 10001:10001\n",
		`ENTRYPOINT ["luatool"]`,
		`CMD ["serve"]`,
		"GET /healthz HTTP/1.0",
		"\nHEALTHCHECK ",
	} {
		if !strings.Contains(df, want) {
			t.Errorf("the Dockerfile has no %q", want)
		}
	}
}

// TestDeployHAProxyConfig: haproxy accepts deploy/haproxy.cfg (its server names
// resolve inside compose only, which init-addr lets it start without).
func TestDeployHAProxyConfig(t *testing.T) {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv(requireHAProxyEnv) == "1" {
			t.Fatalf("haproxy is not installed, and %s=1", requireHAProxyEnv)
		}
		t.Skip("haproxy is not installed (apt-get install haproxy): deploy/haproxy.cfg is not checked")
	}
	cfg, err := filepath.Abs("../deploy/haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(haproxy, "-c", "-f", cfg).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Configuration file is valid") {
		t.Errorf("haproxy -c -f deploy/haproxy.cfg: %v\n%s", err, out)
	}
}

// TestDeployCompose: the fleet example mounts files that exist, and docker-compose
// (when installed) reads it.
func TestDeployCompose(t *testing.T) {
	compose := mustRead(t, "../deploy/compose.yaml")
	for _, m := range regexp.MustCompile(`(?m)^\s+- \./([^:\s]+):`).FindAllStringSubmatch(compose, -1) {
		if _, err := os.Stat(filepath.Join("../deploy", m[1])); err != nil {
			t.Errorf("compose.yaml mounts %s: %v", m[1], err)
		}
	}
	for _, service := range []string{"redis:", "luatool-a: *luatool", "luatool-b: *luatool", "haproxy:"} {
		if !strings.Contains(compose, "\n  "+service) {
			t.Errorf("compose.yaml has no service %q", service)
		}
	}
	dc, err := exec.LookPath("docker-compose")
	if err != nil {
		t.Log("docker-compose is not installed: compose.yaml is not parsed")
		return
	}
	out, err := exec.Command(dc, "-f", "../deploy/compose.yaml", "config", "-q").CombinedOutput()
	if err != nil {
		t.Errorf("docker-compose config: %v\n%s", err, out)
	}
}
