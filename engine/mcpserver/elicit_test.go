package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An answer go-sdk cannot decode is replaced by one it can, whose action says why:
// the call's params then decode, and the ask sees a malformed answer. Answers that
// decode are kept as they were, and params without answers are not touched.
func TestDecodableAnswers(t *testing.T) {
	params := json.RawMessage(`{"name":"t","arguments":{},"requestState":"s","inputResponses":{` +
		`"good":{"action":"accept","content":{"n":1}},"str":{"action":"accept","content":"str"},"none":{"foo":1},"null":null}}`)
	out := decodableAnswers(params)
	var p mcp.CallToolParamsRaw
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("the params still do not decode: %v\n%s", err, out)
	}
	if good, ok := p.InputResponses["good"].(*mcp.ElicitResult); !ok || good.Action != "accept" || good.Content["n"] != float64(1) {
		t.Errorf("a decodable answer changed: %+v", p.InputResponses["good"])
	}
	for _, key := range []string{"str", "none"} {
		if r, ok := p.InputResponses[key].(*mcp.ElicitResult); !ok || !strings.HasPrefix(r.Action, "undecodable: ") {
			t.Errorf("%s: %+v", key, p.InputResponses[key])
		}
	}
	if p.RequestState != "s" || p.Name != "t" {
		t.Errorf("the rest of the params changed: %s", out)
	}
	plain := json.RawMessage(`{"name":"t","arguments":{"inputResponses":1}}`)
	if got := decodableAnswers(plain); string(got) != string(plain) {
		t.Errorf("params without answers changed: %s", got)
	}
	if got := decodableAnswersBody([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":` + string(params) + `}`)); !strings.Contains(string(got), `"id":3`) ||
		!strings.Contains(string(got), "undecodable") {
		t.Errorf("the body: %s", got)
	}
}
