// Package netpolicy decides which hosts tools may reach over the network. It knows
// no Lua and opens no connection: the engine checks tools' declarations with it, the
// settings reader the host's lists, and the http host module asks it about every
// request and every address it is about to dial.
//
// # Patterns
//
// A Pattern names hosts, as a tool's network member and the host's network settings
// write them:
//
//	api.github.com     that host name exactly (lower case; a trailing dot is dropped;
//	                   names in other scripts are taken in their IDNA ASCII form)
//	*.example.com      every name that ends in .example.com (not example.com itself)
//	127.0.0.1, ::1     that address, as a URL's host or as the address a name resolves to
//	10.0.0.0/8         every address of that prefix
//	*                  any host: for a tool that fetches what the model asks, whose
//	                   every host then needs a permission of its own
//
// Ports, schemes and paths are not part of a pattern: ParsePattern refuses them with
// the pattern it would take instead.
//
// # Special addresses
//
// Special names the address ranges a tool must not reach by accident: loopback
// (127.0.0.0/8, ::1), private (10/8, 172.16/12, 192.168/16), link-local
// (169.254/16, fe80::/10) with the cloud metadata services in it (169.254.169.254,
// fd00:ec2::254), carrier-grade NAT (100.64/10), unique-local (fc00::/7),
// unspecified (0.0.0.0/8, ::), multicast, broadcast and the reserved ranges. IPv6
// forms that carry an IPv4 address (::ffff:a.b.c.d, ::a.b.c.d, the NAT64 prefix
// 64:ff9b::/96 and 6to4's 2002::/16) are judged by that address, so that no spelling
// of 127.0.0.1 gets through.
//
// # Policy
//
// A Policy is the host's word for every tool: Deny refuses hosts (by name or by
// address) whatever a tool declares or a permission grants, and Allow names the hosts
// that may be reached although they resolve to special addresses. A special address
// is reached only when an Allow pattern names the host or covers the address: "*" is
// not accepted there. Allow grants no tool a host it did not declare: what a tool may
// reach is its declaration's business (or its permission's), the Policy only takes
// away. Deny wins over Allow.
//
// Everything here is immutable once parsed and safe for concurrent use.
package netpolicy
