// The Echo tool of engine/bench_test.go on the original system's stack: JSON bytes
// in, zod validation, the call, a tool_result out as JSON bytes.
//
//   node peer.mjs once        one call, printed (cold start: process, zod, one call)
//   node peer.mjs bench N     N calls in a loop, five times; prints the median ns/op
import { z } from "zod";

const echo = {
  name: "Echo",
  inputSchema: z.object({ text: z.string() }),
  call: (input) => input.text,
};

function callTool(bytes) {
  const parsed = echo.inputSchema.safeParse(JSON.parse(bytes));
  if (!parsed.success) {
    return JSON.stringify({ type: "tool_result", tool_use_id: "toolu_1", content: parsed.error.message, is_error: true });
  }
  const data = echo.call(parsed.data);
  return JSON.stringify({ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: data }], is_error: false });
}

const input = Buffer.from('{"text":"hello"}');
const [mode = "once", n = "200000"] = process.argv.slice(2);
if (mode === "once") {
  console.log(callTool(input));
} else {
  const iterations = Number(n);
  const runs = [];
  for (let r = 0; r < 6; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) callTool(input);
    runs.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  runs.shift(); // warm-up
  runs.sort((a, b) => a - b);
  console.log(JSON.stringify({ min: runs[0], median: runs[2], max: runs[4] }));
}
