// bench/run's TypeScript SDK peer: the Echo tool (a required string, validated by
// zod as the SDK does for every registered tool) served by @modelcontextprotocol/sdk
// over stdio or, with --http HOST:PORT, over stateless streamable HTTP at /mcp.
//
//   node server.mjs                      serve over stdin and stdout
//   node server.mjs --http 127.0.0.1:PORT
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function newServer() {
  const server = new McpServer({ name: "ts-echo", version: "1" });
  server.registerTool(
    "Echo",
    { description: "Echoes the text.", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

const args = process.argv.slice(2);
if (args[0] !== "--http") {
  await newServer().connect(new StdioServerTransport());
} else {
  const [host, port] = args[1].split(":");
  // The SDK's stateless transport serves one request: the SDK's stateless pattern
  // is a server and a transport for each POST.
  createServer(async (req, res) => {
    if (req.method !== "POST" || req.url !== "/mcp") {
      res.writeHead(405).end();
      return;
    }
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (err) {
      console.error("ts peer:", err);
      if (!res.headersSent) res.writeHead(500).end();
    }
  }).listen(Number(port), host);
}
