package netpolicy

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// A Policy is what the host says about the network for every tool (see the package
// documentation). The zero Policy denies nothing and names no special address.
type Policy struct {
	// Deny are hosts and addresses no tool may reach.
	Deny List
	// Allow are hosts and addresses that may be reached although they are special
	// addresses (loopback, private, ...). It never holds "*".
	Allow List
}

// NewPolicy reads the deny and allow lists of a policy. "*" may deny every host but
// not allow them: that would open every loopback, private and metadata address to
// every tool.
func NewPolicy(deny, allow []string) (Policy, error) {
	var errs []error
	d, err := ParseList(deny)
	if err != nil {
		errs = append(errs, fmt.Errorf("deny: %w", err))
	}
	a, err := ParseList(allow)
	if err != nil {
		errs = append(errs, fmt.Errorf("allow: %w", err))
	}
	for _, p := range a {
		if p.IsAny() {
			errs = append(errs, errors.New(`allow: "*" would let every tool reach loopback, private and cloud metadata addresses; name the hosts or addresses instead`))
		}
	}
	return Policy{Deny: d, Allow: a}, errors.Join(errs...)
}

// A DeniedError is a host or address the policy's deny list refuses.
type DeniedError struct {
	// Host is the host asked for (canonical); Addr, when valid, the address it
	// resolved to that a deny pattern covers.
	Host string
	Addr netip.Addr
	// Pattern is the deny pattern that matched.
	Pattern Pattern
}

func (e *DeniedError) Error() string {
	if e.Addr.IsValid() && e.Addr.String() != e.Host {
		return fmt.Sprintf("%s resolves to %s, which the host's network policy denies (deny %q)", e.Host, e.Addr, e.Pattern)
	}
	return fmt.Sprintf("%s is denied by the host's network policy (deny %q)", e.Host, e.Pattern)
}

// A SpecialAddressError is a host that resolves to (or is) a special address that
// no allow pattern names.
type SpecialAddressError struct {
	Host string
	Addr netip.Addr
	// Class is what Special says of Addr.
	Class string
}

func (e *SpecialAddressError) Error() string {
	what := e.Host
	if e.Addr.String() != e.Host {
		what = fmt.Sprintf("%s resolves to %s, which is", e.Host, e.Addr)
	} else {
		what += " is"
	}
	return fmt.Sprintf("%s %s %s address: tools reach loopback, private, link-local and cloud metadata addresses only when the host's network allow list names the host or the address (luatool: --allow-net %s, or \"network\": {\"allow\": [%q]} in a settings file)",
		what, article(e.Class), e.Class, e.Host, e.Host)
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// CheckHost refuses a host (canonical) that the deny list names.
func (p Policy) CheckHost(host string) error {
	if pat, ok := p.Deny.Match(host); ok {
		return &DeniedError{Host: host, Pattern: pat}
	}
	return nil
}

// CheckAddr refuses an address that host (canonical) resolved to, or that it is,
// when it is about to be dialled: one a deny pattern covers, or a special address
// that no allow pattern names, by the host's name or by the address.
func (p Policy) CheckAddr(host string, addr netip.Addr) error {
	addr = addr.Unmap()
	if pat, ok := p.Deny.MatchAddr(addr); ok {
		return &DeniedError{Host: host, Addr: addr, Pattern: pat}
	}
	class := Special(addr)
	if class == "" {
		return nil
	}
	if _, ok := p.Allow.MatchAddr(addr); ok {
		return nil
	}
	if pat, ok := p.Allow.Match(host); ok && !pat.IsAny() && pat.kind != kindAddr {
		return nil
	}
	return &SpecialAddressError{Host: host, Addr: addr, Class: class}
}

// Describe says what the policy does, for luatool describe: "deny: a, b; allow: c",
// or "none" for the zero Policy.
func (p Policy) Describe() string {
	var parts []string
	if len(p.Deny) > 0 {
		parts = append(parts, "deny "+strings.Join(p.Deny.Strings(), ", "))
	}
	if len(p.Allow) > 0 {
		parts = append(parts, "allow "+strings.Join(p.Allow.Strings(), ", "))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
