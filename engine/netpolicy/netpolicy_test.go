package netpolicy

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestParsePattern(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"api.github.com", "api.github.com"},
		{"API.GitHub.com.", "api.github.com"},
		{"*.example.com", "*.example.com"},
		{"*", "*"},
		{"127.0.0.1", "127.0.0.1"},
		{"[::1]", "::1"},
		{"::ffff:127.0.0.1", "127.0.0.1"},
		{"10.0.0.0/8", "10.0.0.0/8"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"_dmarc.example.com", "_dmarc.example.com"},
	} {
		p, err := ParsePattern(c.in)
		if err != nil || p.String() != c.want {
			t.Errorf("ParsePattern(%q) = %q, %v; want %q", c.in, p, err, c.want)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"", "may not be empty"},
		{"https://api.github.com/repos", `is a URL; a pattern names hosts only: write "api.github.com"`},
		{"example.com:443", `ports are not part of a pattern: write "example.com"`},
		{"example.com/path", "has a path"},
		{"10.0.0.1/8", `write "10.0.0.0/8"`},
		{"api.*.com", `a * stands alone`},
		{"**.example.com", `a * stands alone`},
		{" example.com", "spaces"},
		{"exa mple.com", "may not hold"},
		{"a..b", "1 to 63 characters"},
		{"fe80::1%eth0", `has a zone`},
	} {
		_, err := ParsePattern(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParsePattern(%q) = %v; want an error with %q", c.in, err, c.msg)
		}
	}
}

func TestPatternMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, host string
		want          bool
	}{
		{"api.github.com", "api.github.com", true},
		{"api.github.com", "github.com", false},
		{"api.github.com", "evil-api.github.com", false},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "badexample.com", false},
		{"*", "anything.at.all", true},
		{"10.0.0.0/8", "10.1.2.3", true},
		{"10.0.0.0/8", "11.0.0.1", false},
		{"127.0.0.1", "127.0.0.1", true},
		{"::ffff:127.0.0.1", "127.0.0.1", true},
		{"127.0.0.1", "localhost", false},
	} {
		p, err := ParsePattern(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		host, err := CanonicalHost(c.host)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Match(host); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.pattern, c.host, got, c.want)
		}
	}
}

func TestSpecial(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:7f00:1", "loopback"},
		{"::127.0.0.1", "loopback"},
		{"64:ff9b::127.0.0.1", "loopback"},
		{"2002:7f00:1::", "loopback"},
		{"10.2.3.4", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"::ffff:192.168.1.1", "private"},
		{"169.254.169.254", "cloud metadata"},
		{"::ffff:169.254.169.254", "cloud metadata"},
		{"fd00:ec2::254", "cloud metadata"},
		{"169.254.1.1", "link-local"},
		{"fe80::1", "link-local"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"fc00::1", "unique-local"},
		{"fd12:3456::1", "unique-local"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"93.184.216.34", ""},
		{"172.32.0.1", ""},
		{"2606:4700::1111", ""},
		{"::ffff:8.8.8.8", ""},
	} {
		if got := Special(netip.MustParseAddr(c.addr)); got != c.want {
			t.Errorf("Special(%s) = %q, want %q", c.addr, got, c.want)
		}
	}
	if Special(netip.Addr{}) == "" {
		t.Error("the invalid address passes as an ordinary one")
	}
}

func TestPolicy(t *testing.T) {
	p, err := NewPolicy([]string{"blocked.example", "203.0.114.0/24"}, []string{"fixture.test", "10.0.0.5"})
	if err != nil {
		t.Fatal(err)
	}
	var denied *DeniedError
	if err := p.CheckHost("blocked.example"); !errors.As(err, &denied) || !strings.Contains(err.Error(), `deny "blocked.example"`) {
		t.Errorf("CheckHost(blocked.example) = %v", err)
	}
	if err := p.CheckHost("fine.example"); err != nil {
		t.Errorf("CheckHost(fine.example) = %v", err)
	}
	if err := p.CheckAddr("fine.example", netip.MustParseAddr("203.0.114.7")); !errors.As(err, &denied) || !strings.Contains(err.Error(), "resolves to 203.0.114.7") {
		t.Errorf("an address in a denied prefix: %v", err)
	}
	var special *SpecialAddressError
	err = p.CheckAddr("rebind.example", netip.MustParseAddr("127.0.0.1"))
	if !errors.As(err, &special) || special.Class != "loopback" || !strings.Contains(err.Error(), "rebind.example resolves to 127.0.0.1, which is a loopback address") ||
		!strings.Contains(err.Error(), "--allow-net rebind.example") {
		t.Errorf("a name resolving to loopback: %v", err)
	}
	if err := p.CheckAddr("169.254.169.254", netip.MustParseAddr("169.254.169.254")); !errors.As(err, &special) || !strings.Contains(err.Error(), "169.254.169.254 is a cloud metadata address") {
		t.Errorf("the metadata address: %v", err)
	}
	if err := p.CheckAddr("fixture.test", netip.MustParseAddr("127.0.0.1")); err != nil {
		t.Errorf("a name the allow list names: %v", err)
	}
	if err := p.CheckAddr("10.0.0.5", netip.MustParseAddr("::ffff:10.0.0.5")); err != nil {
		t.Errorf("an address the allow list names: %v", err)
	}
	if err := p.CheckAddr("other.test", netip.MustParseAddr("10.0.0.6")); err == nil {
		t.Error("an address next to the allowed one passes")
	}
	if err := p.CheckAddr("public.example", netip.MustParseAddr("93.184.216.34")); err != nil {
		t.Errorf("an ordinary address: %v", err)
	}
	if got := p.Describe(); got != "deny blocked.example, 203.0.114.0/24; allow fixture.test, 10.0.0.5" {
		t.Errorf("Describe() = %q", got)
	}

	// Deny wins over allow.
	both, err := NewPolicy([]string{"fixture.test"}, []string{"fixture.test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := both.CheckHost("fixture.test"); err == nil {
		t.Error("a host both denied and allowed passes")
	}
	if _, err := NewPolicy(nil, []string{"*"}); err == nil || !strings.Contains(err.Error(), `allow: "*" would let every tool reach`) {
		t.Errorf(`allow "*": %v`, err)
	}
	everything, err := NewPolicy([]string{"*"}, nil)
	if err != nil || everything.CheckHost("example.com") == nil {
		t.Errorf(`deny "*" denies nothing: %v`, err)
	}
	if _, err := NewPolicy([]string{"a:1"}, []string{"b/c"}); err == nil || !strings.Contains(err.Error(), "deny:") || !strings.Contains(err.Error(), "allow:") {
		t.Errorf("bad entries in both lists: %v", err)
	}
}
