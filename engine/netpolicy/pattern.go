package netpolicy

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// Any is the pattern of every host.
const Any = "*"

// patternKind is what a Pattern matches.
type patternKind int

const (
	kindName       patternKind = iota // one host name
	kindSubdomains                    // the names under a domain
	kindAddr                          // the addresses of a prefix (one address: a full-length prefix)
	kindAny                           // every host
)

// A Pattern names a set of hosts (see the package documentation). The zero Pattern
// matches nothing.
type Pattern struct {
	text   string
	kind   patternKind
	name   string       // kindName: the name; kindSubdomains: the domain, without "*."
	prefix netip.Prefix // kindAddr
}

// ParsePattern reads one pattern. The error says what is wrong and, for a URL or a
// host with a port, which pattern was probably meant.
func ParsePattern(s string) (Pattern, error) {
	switch {
	case s == "":
		return Pattern{}, errors.New("a host pattern may not be empty")
	case s == Any:
		return Pattern{text: Any, kind: kindAny}, nil
	case strings.TrimSpace(s) != s:
		return Pattern{}, fmt.Errorf("%q has spaces around it", s)
	case strings.Contains(s, "://"):
		hint := ""
		if u, err := url.Parse(s); err == nil && u.Hostname() != "" {
			hint = fmt.Sprintf(": write %q", u.Hostname())
		}
		return Pattern{}, fmt.Errorf("%q is a URL; a pattern names hosts only%s", s, hint)
	}
	if prefix, err := netip.ParsePrefix(s); err == nil {
		if prefix.Masked() != prefix {
			return Pattern{}, fmt.Errorf("%q has bits set past its prefix length: write %q", s, prefix.Masked().String())
		}
		return Pattern{text: prefix.String(), kind: kindAddr, prefix: prefix}, nil
	}
	if addr, err := netip.ParseAddr(s); err == nil && addr.Zone() != "" {
		return Pattern{}, fmt.Errorf("%q has a zone, which names an interface of this machine: write %q", s, addr.WithZone(""))
	}
	if addr, err := parseAddr(s); err == nil {
		addr = addr.Unmap()
		p := netip.PrefixFrom(addr, addr.BitLen())
		return Pattern{text: addr.String(), kind: kindAddr, prefix: p}, nil
	}
	if strings.Contains(s, "/") {
		return Pattern{}, fmt.Errorf("%q has a path or is not a valid address prefix; a pattern names hosts only", s)
	}
	if host, port, ok := strings.Cut(s, ":"); ok {
		return Pattern{}, fmt.Errorf("%q has a port (%s); ports are not part of a pattern: write %q", s, port, host)
	}
	if domain, ok := strings.CutPrefix(s, "*."); ok {
		name, err := CanonicalName(domain)
		if err != nil {
			return Pattern{}, fmt.Errorf("%q: %v", s, err)
		}
		return Pattern{text: "*." + name, kind: kindSubdomains, name: name}, nil
	}
	if strings.Contains(s, "*") {
		return Pattern{}, fmt.Errorf("%q: a * stands alone (any host) or starts a pattern as \"*.\" (\"*.example.com\")", s)
	}
	name, err := CanonicalName(s)
	if err != nil {
		return Pattern{}, fmt.Errorf("%q: %v", s, err)
	}
	return Pattern{text: name, kind: kindName, name: name}, nil
}

// parseAddr reads an IP address, an IPv6 one in brackets too. A zone is refused:
// it names an interface of this machine, which no policy should depend on.
func parseAddr(s string) (netip.Addr, error) {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	addr, err := netip.ParseAddr(s)
	if err == nil && addr.Zone() != "" {
		return netip.Addr{}, errors.New("an address with a zone")
	}
	return addr, err
}

// String returns the pattern in its canonical form ("*.example.com", "10.0.0.0/8").
func (p Pattern) String() string { return p.text }

// IsAny reports whether the pattern is "*".
func (p Pattern) IsAny() bool { return p.kind == kindAny }

// Match reports whether the pattern names host, a canonical host as CanonicalHost
// returns it: a name, or an address in its standard form.
func (p Pattern) Match(host string) bool {
	switch p.kind {
	case kindAny:
		return true
	case kindName:
		return host == p.name
	case kindSubdomains:
		return strings.HasSuffix(host, "."+p.name)
	case kindAddr:
		addr, err := netip.ParseAddr(host)
		return err == nil && p.Contains(addr)
	}
	return false
}

// Contains reports whether the pattern is an address or prefix covering addr
// (IPv4-mapped forms of IPv4 addresses included). Name patterns contain no address.
func (p Pattern) Contains(addr netip.Addr) bool {
	return p.kind == kindAddr && p.prefix.Contains(addr.Unmap())
}

// CanonicalName returns a host name in the form patterns compare: IDNA ASCII, lower
// case, without a trailing dot. It refuses what is not a host name: labels of
// letters, digits, hyphens and underscores (as DNS records such as _dmarc use), none
// empty, at most 63 characters each and 253 in all.
func CanonicalName(s string) (string, error) {
	name := strings.TrimSuffix(s, ".")
	ascii, err := idna.Lookup.ToASCII(name)
	if err != nil {
		// idna refuses underscores; names with them are ASCII already.
		ascii = strings.ToLower(name)
	}
	if ascii == "" {
		return "", errors.New("not a host name")
	}
	if len(ascii) > 253 {
		return "", errors.New("a host name has at most 253 characters")
	}
	for _, label := range strings.Split(ascii, ".") {
		if label == "" || len(label) > 63 {
			return "", errors.New("not a host name: every part between dots has 1 to 63 characters")
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("not a host name: %q may not hold %q", label, c)
			}
		}
	}
	return ascii, nil
}

// CanonicalHost returns the host of a URL in the form patterns compare: an address
// in its standard form (brackets dropped, IPv4-mapped IPv6 made IPv4), or a name as
// CanonicalName gives it.
func CanonicalHost(s string) (string, error) {
	if addr, err := parseAddr(s); err == nil {
		return addr.Unmap().String(), nil
	}
	return CanonicalName(s)
}

// A List is a list of patterns, in the order given.
type List []Pattern

// ParseList reads patterns; the error names every entry that is wrong.
func ParseList(entries []string) (List, error) {
	var (
		out  List
		errs []error
	)
	for _, e := range entries {
		p, err := ParsePattern(e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	return out, errors.Join(errs...)
}

// Match returns the first pattern naming host (canonical), if any.
func (l List) Match(host string) (Pattern, bool) {
	for _, p := range l {
		if p.Match(host) {
			return p, true
		}
	}
	return Pattern{}, false
}

// MatchAddr returns the first address pattern covering addr, if any.
func (l List) MatchAddr(addr netip.Addr) (Pattern, bool) {
	for _, p := range l {
		if p.Contains(addr) {
			return p, true
		}
	}
	return Pattern{}, false
}

// Strings returns the patterns' canonical forms.
func (l List) Strings() []string {
	out := make([]string, len(l))
	for i, p := range l {
		out[i] = p.text
	}
	return out
}
