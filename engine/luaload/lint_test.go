package luaload

import (
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/diag"
)

// TestLintFindsMapResultWhereverItIsGiven holds lintContent to the ways a file gives
// mapResult: a field of the returned table, a local function, x.mapResult = and
// function x.mapResult; and to nothing outside it.
func TestLintFindsMapResultWhereverItIsGiven(t *testing.T) {
	bad := `{ { type = "audio", data = "AAAA", mimeType = "audio" } }`
	for name, src := range map[string]string{
		"field":          "return { mapResult = function() return " + bad + " end }",
		"local function": "local function mapResult() return " + bad + " end\nreturn { mapResult = mapResult }",
		"assignment":     "local tool = {}\ntool.mapResult = function() return " + bad + " end\nreturn tool",
		"function def":   "local tool = {}\nfunction tool.mapResult() return " + bad + " end\nreturn tool",
	} {
		diags := lintContent("t.lua", []byte(src), "mapResult")
		if len(diags) != 1 || diags[0].Severity != diag.SeverityError || !strings.Contains(diags[0].Message, `mapResult: audio block: mimeType: "audio" is not a MIME type`) {
			t.Errorf("%s: diagnostics = %v", name, diags)
		}
	}
	elsewhere := "local schema = " + bad + "\nreturn { call = function() return " + bad + " end, mapResult = function(d) return d end }"
	if diags := lintContent("t.lua", []byte(elsewhere), "mapResult"); len(diags) != 0 {
		t.Errorf("blocks outside mapResult reported: %v", diags)
	}
}
