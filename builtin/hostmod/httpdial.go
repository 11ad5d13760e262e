package hostmod

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"

	"github.com/luatool/luatool/engine/netpolicy"
)

// dial connects to addr ("host:port") for the transport: it resolves the host with
// the module's resolver, skips every address the policy refuses (a denied one, a
// special one no allow pattern names) and connects to the first that remains. The
// dialer checks the address once more as the socket connects (Control), so that no
// path through the standard library reaches an address the policy refuses.
func (s *httpState) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	h, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", portText)
	}
	host, err := netpolicy.CanonicalHost(h)
	if err != nil {
		return nil, err
	}
	if err := s.opts.Policy.CheckHost(host); err != nil {
		return nil, err
	}
	addrs, err := s.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var refused, failed error
	for _, a := range addrs {
		if err := s.opts.Policy.CheckAddr(host, a); err != nil {
			refused = cmpOr(refused, err)
			continue
		}
		d := net.Dialer{Control: s.control(host)}
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		failed = cmpOr(failed, err)
	}
	switch {
	case failed != nil:
		return nil, failed
	case refused != nil:
		return nil, refused
	}
	return nil, fmt.Errorf("%s has no address", host)
}

// cmpOr keeps the first error.
func cmpOr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// resolve returns the addresses of host: itself when it is one, else the
// resolver's answer.
func (s *httpState) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	var r Resolver = net.DefaultResolver
	if s.opts.Resolver != nil {
		r = s.opts.Resolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("cannot resolve %s: %w", host, err)
	}
	return addrs, nil
}

// control is the dialer's last check of the address a socket connects to.
func (s *httpState) control(host string) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return errors.New("refusing to connect to an address that does not parse: " + address)
		}
		return s.opts.Policy.CheckAddr(host, ap.Addr())
	}
}
