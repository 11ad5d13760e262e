package netpolicy

import "net/netip"

// specialRange is one range of special addresses and what to call it.
type specialRange struct {
	prefix netip.Prefix
	class  string
}

// specialRanges are the ranges Special reports, the narrower before the wider that
// hold them (the metadata address before link-local).
var specialRanges = func() []specialRange {
	var out []specialRange
	for _, r := range []struct{ prefix, class string }{
		{"169.254.169.254/32", "cloud metadata"},
		{"fd00:ec2::254/128", "cloud metadata"},
		{"0.0.0.0/8", "unspecified"},
		{"127.0.0.0/8", "loopback"},
		{"10.0.0.0/8", "private"},
		{"172.16.0.0/12", "private"},
		{"192.168.0.0/16", "private"},
		{"169.254.0.0/16", "link-local"},
		{"100.64.0.0/10", "carrier-grade NAT"},
		{"192.0.0.0/24", "reserved"},
		{"192.0.2.0/24", "reserved"},
		{"198.18.0.0/15", "reserved"},
		{"198.51.100.0/24", "reserved"},
		{"203.0.113.0/24", "reserved"},
		{"224.0.0.0/4", "multicast"},
		{"255.255.255.255/32", "broadcast"},
		{"240.0.0.0/4", "reserved"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"fc00::/7", "unique-local"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "reserved"},
		{"ff00::/8", "multicast"},
		{"100::/64", "reserved"},
		{"2001:db8::/32", "reserved"},
	} {
		out = append(out, specialRange{netip.MustParsePrefix(r.prefix), r.class})
	}
	return out
}()

// IPv6 prefixes whose addresses carry an IPv4 address, judged by that address.
var (
	compatPrefix = netip.MustParsePrefix("::/96")        // IPv4-compatible (deprecated): ::a.b.c.d
	nat64Prefix  = netip.MustParsePrefix("64:ff9b::/96") // NAT64: 64:ff9b::a.b.c.d
	sixToFour    = netip.MustParsePrefix("2002::/16")    // 6to4: 2002:aabb:ccdd::/48
)

// Special returns what kind of special address addr is ("loopback", "private",
// "link-local", "cloud metadata", "carrier-grade NAT", "unique-local",
// "unspecified", "multicast", "broadcast", "reserved"), or "" for an ordinary
// address on the Internet. An IPv6 address that carries an IPv4 one (mapped,
// compatible, NAT64, 6to4) is judged by the IPv4 address; an invalid address is
// "reserved", so that nothing unknown passes.
func Special(addr netip.Addr) string {
	if !addr.IsValid() {
		return "reserved"
	}
	addr = embeddedIPv4(addr.WithZone(""))
	for _, r := range specialRanges {
		if r.prefix.Contains(addr) {
			return r.class
		}
	}
	return ""
}

// embeddedIPv4 returns the IPv4 address an IPv6 address carries, or addr itself.
func embeddedIPv4(addr netip.Addr) netip.Addr {
	if addr.Is4() {
		return addr
	}
	b := addr.As16()
	switch {
	case addr.Is4In6(), nat64Prefix.Contains(addr):
		return netip.AddrFrom4([4]byte(b[12:16]))
	case compatPrefix.Contains(addr) && addr != netip.IPv6Unspecified() && addr != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte(b[12:16]))
	case sixToFour.Contains(addr):
		return netip.AddrFrom4([4]byte(b[2:6]))
	}
	return addr
}
