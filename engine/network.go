package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/luatool/luatool/engine/netpolicy"
)

// The network member. A tool lists the hosts its call may reach (ToolDef.Network);
// host modules that use the network (the http module) refuse every other host, and
// the host's own policy (package netpolicy) refuses more. A tool that lists "*"
// fetches what the model asks: it may reach, in one call, only the hosts its
// permission decision covered, the "domain:HOST" entries of its ruleContent, and it
// cannot allow itself (see decide), so that each host needs an allow rule, a mode
// that allows or a person's yes.

// domainPrefix starts the ruleContent entries that name a host a "*" tool reaches.
const domainPrefix = "domain:"

// checkNetwork parses the tool's network member into t.network.
func (t *Tool) checkNetwork() error {
	list, err := netpolicy.ParseList(t.def.Network)
	if err != nil {
		return fmt.Errorf("network: %w", err)
	}
	for _, p := range list {
		if p.IsAny() && len(list) > 1 {
			return errors.New(`network: "*" stands alone: it already names every host`)
		}
	}
	if len(list) == 1 && list[0].IsAny() && t.def.RuleContent == nil {
		return errors.New(`network = {"*"} needs ruleContent returning "domain:HOST" for the host a call reaches, so that each host gets a permission of its own`)
	}
	t.network = list
	return nil
}

// Network returns the hosts the tool declares it may reach, as patterns in their
// canonical form (nil for none; {"*"} for any host, each needing a permission).
func (t *Tool) Network() []string {
	if len(t.network) == 0 {
		return nil
	}
	return t.network.Strings()
}

// perDomain reports whether the tool declares "*": each host needs a permission.
func (t *Tool) perDomain() bool { return len(t.network) == 1 && t.network[0].IsAny() }

// callNetwork is what one call may reach.
type callNetwork struct {
	hosts   []string
	granted bool
}

// Network returns the hosts the running call may reach, as netpolicy patterns, and
// whether they are the hosts its permission decision covered (the tool declares "*")
// rather than the tool's declaration. It is nil outside call, and for a tool that
// declares no host. Loaders hand it to the host modules of the call.
func (cc *CallContext) Network() (hosts []string, granted bool) {
	if cc == nil {
		return nil, false
	}
	return cc.network.hosts, cc.network.granted
}

// networkOf returns what a call of t with input may reach: the tool's declaration,
// or for a "*" tool the hosts of the "domain:HOST" entries of its ruleContent, the
// content its permission was decided on. An entry that is not a single host (a
// pattern, an address prefix) grants nothing.
func networkOf(ctx context.Context, t *Tool, input map[string]any) callNetwork {
	if !t.perDomain() {
		return callNetwork{hosts: t.Network()}
	}
	hosts := grantedHosts(t, ctx, input)
	return callNetwork{hosts: hosts, granted: true}
}

// grantedHosts returns the hosts a "*" tool's ruleContent names for input.
func grantedHosts(t *Tool, ctx context.Context, input map[string]any) []string {
	parts, _ := t.RuleContent(ctx, input)
	var hosts []string
	for _, part := range parts {
		h, ok := strings.CutPrefix(part, domainPrefix)
		if !ok {
			continue
		}
		host, err := netpolicy.CanonicalHost(h)
		if err != nil {
			continue
		}
		hosts = append(hosts, host)
	}
	return hosts
}

// networkNote is the sentence a permission request adds about the network: the
// hosts the call would reach. Empty for a tool that declares none.
func networkNote(ctx context.Context, t *Tool, input map[string]any) string {
	switch {
	case t.perDomain():
		hosts := grantedHosts(t, ctx, input)
		if len(hosts) == 0 {
			return "It reaches no host with this input."
		}
		return "It would reach " + strings.Join(hosts, ", ") + " (this permission covers that host only)."
	case len(t.network) > 0:
		return "It may reach " + strings.Join(t.Network(), ", ") + "."
	}
	return ""
}
