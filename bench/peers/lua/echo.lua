-- The Echo tool of bench/run's MCP rows (the same as engine/bench_test.go's): the
-- text, a required string, answered back. bench/peers/ts and bench/peers/gosdk
-- define the same tool on their stacks.
return {
  name = "Echo",
  prompt = "Echoes the text.",
  inputSchema = { type = "object", properties = { text = { type = "string" } }, required = { "text" } },
  isReadOnly = true,
  call = function(input) return input.text end,
}
