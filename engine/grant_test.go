package engine

import "testing"

// Only call acts: it alone shows files, starts what outlives the call, reports
// progress and reaches the network, and it writes only while the call is writable.
// Every member reads, logs and has the rules' hidden paths; outside a call, a member
// gets nothing but reading.
func TestGrant(t *testing.T) {
	e := &Engine{}
	e.closer = e.onClose
	cc := &CallContext{logTo: featureLog{}, Progress: func(any) {}, Session: "s", engine: e,
		hidden: func(string) bool { return true }, network: callNetwork{hosts: []string{"example.com"}}}
	for _, member := range []string{"isReadOnly", "validateInput", "checkPermissions", "mapResult", "description"} {
		g := cc.Grant(member)
		if g.Write || g.Show || g.OnClose != nil || g.Progress != nil || g.Network != nil || member == acting {
			t.Errorf("%s: %+v acts", member, g)
		}
		if g.Log == nil || g.Hidden == nil || g.Session != "s" {
			t.Errorf("%s: %+v lacks what every member has", member, g)
		}
	}
	g := cc.Grant("call")
	if acting != "call" || !g.Show || g.OnClose == nil || g.Progress == nil || len(g.Network) != 1 || g.Write {
		t.Errorf("call of a read-only call: %+v", g)
	}
	cc.writable = true
	if !cc.Grant("call").Write || cc.Grant("validateInput").Write {
		t.Error("only call writes, while the call is writable")
	}
	var none *CallContext
	if g := none.Grant("call"); g.Write || g.Show || g.OnClose != nil || g.Log != nil {
		t.Errorf("outside a call: %+v", g)
	}
}
