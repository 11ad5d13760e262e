#!/usr/bin/env node
// The server scenarios of @modelcontextprotocol/conformance 0.1.16 over stdio, and a
// few of the 2026-07-28 era, through the TypeScript SDK clients.
//
// The runner (conformance server --url) speaks streamable HTTP only. The legacy
// suite makes the calls of its 29 scenarios that are not about HTTP (all but
// server-sse-polling, server-sse-multiple-streams and dns-rebinding-protection),
// with the runner's client identity and capabilities and its pass rules (ported
// from src/scenarios/server/*.ts of v0.1.16), through the SDK's
// StdioClientTransport: v1 (@modelcontextprotocol/sdk) or v2
// (@modelcontextprotocol/client, in the legacy era: initialize 2025-11-25). The
// modern suite needs v2 pinned to 2026-07-28: connect (server/discover), tools/list,
// a call, subscriptions/listen, and the end of stdin with a subscription open.
//
// Each scenario spawns the server anew, as the runner opens a connection per
// scenario, and ends by closing the server's stdin: a server that does not then
// exit by itself fails the scenario (the SDK would kill it after 2 s).
//
// usage: node stdio-conformance.mjs [--sdk v1|v2] [--era legacy|2026-07-28]
//          [--suite legacy|modern] [--scenario NAME]... [--json FILE]
//          [--timeout MS] -- SERVER_COMMAND [ARGS...]
//    or: the same options and --url http://127.0.0.1:PORT/mcp, for the same checks
//        over streamable HTTP (to compare this script with the runner on one server)
// The --timeout (default 20000 ms) bounds each request and the wait for the server
// to exit: a guard against a server that never answers, not a pace it must keep.
// Output: one line per scenario (✓ or ✗ NAME: why), then a count; with --json, the
// same as {sdk, era, suite, results: [{scenario, passed, error}]}.
// Exit status: 0 when every scenario passed, 1 when one failed, 2 on bad usage.

import { writeFileSync } from 'node:fs';

const argv = process.argv.slice(2);
let dash = argv.indexOf('--');
const urlAt = argv.indexOf('--url');
if (dash < 0 && urlAt >= 0) dash = argv.length;
if (dash < 0 || (urlAt < 0 && dash === argv.length - 1)) usage('no server command after --');
const opts = { sdk: 'v1', era: 'legacy', suite: 'legacy', scenarios: [], json: null, timeout: 20000, url: null };
for (let i = 0; i < dash; i++) {
  const a = argv[i];
  const value = () => (i + 1 < dash ? argv[++i] : usage(`${a} needs a value`));
  if (a === '--sdk') opts.sdk = value();
  else if (a === '--era') opts.era = value();
  else if (a === '--suite') opts.suite = value();
  else if (a === '--scenario') opts.scenarios.push(value());
  else if (a === '--json') opts.json = value();
  else if (a === '--timeout') opts.timeout = Number(value());
  else if (a === '--url') opts.url = value();
  else usage(`unknown option ${a}`);
}
const [command, ...args] = argv.slice(dash + 1);
if (!['v1', 'v2'].includes(opts.sdk)) usage(`--sdk must be v1 or v2, not ${opts.sdk}`);
if (opts.sdk === 'v1' && opts.era !== 'legacy') usage('SDK v1 speaks the legacy era only');
if (!['legacy', 'modern'].includes(opts.suite)) usage(`--suite must be legacy or modern, not ${opts.suite}`);
if (opts.suite === 'modern' && opts.era === 'legacy') usage('the modern suite needs --sdk v2 --era 2026-07-28');
if (!(opts.timeout > 0)) usage('--timeout must be a positive number of milliseconds');

function usage(why) {
  console.error(`stdio-conformance.mjs: ${why}\nusage: stdio-conformance.mjs [--sdk v1|v2] [--era legacy|2026-07-28] [--suite legacy|modern] [--scenario NAME]... [--json FILE] [--timeout MS] -- COMMAND [ARGS...]`);
  process.exit(2);
}

// ---- the two SDK lines behind one small surface --------------------------------

let sdk;
if (opts.sdk === 'v1') {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const T = await import('@modelcontextprotocol/sdk/types.js');
  sdk = {
    Client, StdioClientTransport, StreamableHTTPClientTransport,
    clientOptions: {},
    onRequest: (c, method, h) => c.setRequestHandler(
      { 'sampling/createMessage': T.CreateMessageRequestSchema, 'elicitation/create': T.ElicitRequestSchema }[method], h),
    onNotification: (c, method, h) => c.setNotificationHandler(
      { 'notifications/message': T.LoggingMessageNotificationSchema, 'notifications/progress': T.ProgressNotificationSchema }[method], h),
    callTool: (c, params, options) => c.callTool(params, T.CallToolResultSchema, options),
  };
} else {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const mode = opts.era === 'legacy' ? 'legacy' : { pin: opts.era };
  sdk = {
    Client, StdioClientTransport, StreamableHTTPClientTransport,
    clientOptions: { versionNegotiation: { mode } },
    onRequest: (c, method, h) => c.setRequestHandler(method, h),
    onNotification: (c, method, h) => c.setNotificationHandler(method, h),
    callTool: (c, params, options) => c.callTool(params, options),
  };
}

const rq = { timeout: opts.timeout };
const errs = (list) => (list.length ? list.join('; ') : undefined);
// settled resolves after the handlers already queued (microtasks, such as the SDKs'
// notification handlers) have run.
const settled = () => new Promise((r) => setImmediate(r));
// guard resolves to undefined after the timeout: raced against what the server
// should do, so that a server that never does it fails instead of hanging the run.
const guard = () => new Promise((r) => setTimeout(r, opts.timeout).unref());

// connect spawns the server and connects a client declaring what the runner's
// client declares: capabilities {sampling: {}, elicitation: {}}. Each of waiters
// sees the notifications the server sends, whatever the client makes of them,
// until it returns true.
async function connect() {
  const client = new sdk.Client(
    { name: 'conformance-test-client', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} }, ...sdk.clientOptions }
  );
  const transport = opts.url
    ? new sdk.StreamableHTTPClientTransport(new URL(opts.url))
    : new sdk.StdioClientTransport({ command, args, stderr: 'ignore' });
  await client.connect(transport, { timeout: opts.timeout });
  const conn = { client, transport, waiters: [] };
  // The transport calls its onmessage afresh for each message, so wrapping the
  // client's handler sees every message first.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (message.method && message.id === undefined) conn.waiters = conn.waiters.filter((w) => !w(message));
    deliver?.call(transport, message, extra);
  };
  return conn;
}

// sent resolves to the first notification of method the server sends from now
// on, or to undefined after the timeout.
function sent(conn, method) {
  return Promise.race([new Promise((r) => conn.waiters.push((m) => m.method === method && (r(m), true))), guard()]);
}

// close ends the connection. Over stdio it closes the server's stdin and waits for
// the server to exit by itself, and says why not when it does not.
async function close(conn) {
  const proc = conn.transport._process; // the SDK transport's child process
  if (!proc) {
    await conn.client.close();
    return undefined;
  }
  let why;
  if (proc.exitCode === null && proc.signalCode === null) {
    const exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
    proc.stdin.end();
    const end = await Promise.race([exited, guard()]);
    if (!end) why = `the server did not exit within ${opts.timeout} ms of the end of its stdin`;
    else if (end.code !== 0) why = `the server exited with ${end.signal ?? `status ${end.code}`} at the end of its stdin`;
  }
  await conn.client.close();
  return why;
}

// everyHas checks that list (the members of a list result) is an array whose
// every item has each of fields, as tools-list, resources-list and prompts-list do.
function everyHas(list, member, item, fields) {
  if (!Array.isArray(list)) return `Missing ${member} array`;
  const e = [];
  list.forEach((x, i) => { for (const f of fields) if (!x[f]) e.push(`${item} ${i}: missing ${f}`); });
  return errs(e);
}

// readsContent reads uri and checks that its first content has a uri, a mimeType
// and the field (text or blob), as resources-read-text and -binary do.
async function readsContent(c, uri, field) {
  const r = await c.readResource({ uri }, rq);
  const k = r.contents?.[0];
  if (!k) return 'contents array is empty';
  const e = [];
  if (!k.uri) e.push('Content missing uri');
  if (!k.mimeType) e.push('Content missing mimeType');
  if (!k[field]) e.push(`Content missing ${field} field`);
  return errs(e);
}

// callAsking calls a tool that should ask the client (method: sampling or
// elicitation) during the call, answers with answer, and checks that it asked and
// that the result has content, as tools-call-sampling and -elicitation do.
async function callAsking(c, method, what, answer, call) {
  let asked = false;
  sdk.onRequest(c, method, async () => {
    asked = true;
    return answer;
  });
  const r = await sdk.callTool(c, call, rq);
  const e = [];
  if (!asked) e.push(`Server did not request ${what} from client`);
  if (!r.content?.length) e.push('Tool did not return content');
  return errs(e);
}

// ---- the legacy suite: name -> async (client) => error message or undefined ------

const legacy = {
  'server-initialize': async () => undefined,
  'logging-set-level': async (c) => {
    const r = await c.setLoggingLevel('info', rq);
    return r && Object.keys(r).length > 0 ? 'Expected empty object {} response' : undefined;
  },
  ping: async (c) => {
    const r = await c.ping(rq);
    return r && Object.keys(r).length > 0 ? 'Expected empty object {} response' : undefined;
  },
  'completion-complete': async (c) => {
    const r = await c.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } }, rq);
    const e = [];
    if (!r.completion) e.push('Missing completion field');
    else if (!Array.isArray(r.completion.values)) e.push('completion.values is not an array');
    return errs(e);
  },
  'tools-list': async (c) => everyHas((await c.listTools(undefined, rq)).tools, 'tools', 'Tool', ['name', 'description', 'inputSchema']),
  'tools-call-simple-text': async (c) => {
    const r = await sdk.callTool(c, { name: 'test_simple_text' }, rq);
    const t = r.content?.find((x) => x.type === 'text');
    return !t ? 'No text content found' : !t.text ? 'Text content missing text field' : undefined;
  },
  'tools-call-image': async (c) => {
    const r = await sdk.callTool(c, { name: 'test_image_content', arguments: {} }, rq);
    const im = r.content?.find((x) => x.type === 'image');
    return !im ? 'No image content found' : !im.data ? 'Image content missing data field' : !im.mimeType ? 'Image content missing mimeType' : undefined;
  },
  'tools-call-audio': async (c) => {
    const r = await sdk.callTool(c, { name: 'test_audio_content', arguments: {} }, rq);
    const a = r.content?.find((x) => x.type === 'audio');
    if (!a) return 'No audio content found';
    const e = [];
    if (!a.data) e.push('Audio content missing data field');
    if (a.mimeType !== 'audio/wav') e.push(`Expected mimeType 'audio/wav', got '${a.mimeType}'`);
    return errs(e);
  },
  'tools-call-embedded-resource': async (c) => {
    const r = await sdk.callTool(c, { name: 'test_embedded_resource', arguments: {} }, rq);
    const b = r.content?.find((x) => x.type === 'resource');
    if (!b) return 'No resource content found';
    if (!b.resource) return 'Resource content missing resource field';
    const e = [];
    if (!b.resource.uri) e.push('Resource missing uri field');
    if (!b.resource.mimeType) e.push('Resource missing mimeType field');
    if (!b.resource.text && !b.resource.blob) e.push('Resource missing both text and blob fields');
    return errs(e);
  },
  'tools-call-mixed-content': async (c) => {
    const r = await sdk.callTool(c, { name: 'test_multiple_content_types', arguments: {} }, rq);
    const k = r.content || [];
    const e = [];
    if (k.length < 2) e.push('Expected multiple content items');
    for (const t of ['text', 'image', 'resource']) if (!k.some((x) => x.type === t)) e.push(`Missing ${t} content`);
    return errs(e);
  },
  'tools-call-with-logging': async (c) => {
    const logs = [];
    sdk.onNotification(c, 'notifications/message', (n) => { logs.push(n); });
    await c.setLoggingLevel('debug', rq);
    await sdk.callTool(c, { name: 'test_tool_with_logging', arguments: {} }, rq);
    // The runner waits 200 ms here, for notifications that come on other HTTP
    // streams; over stdio they come before the response, and their handlers are
    // queued before the call returns: one turn of the event loop runs them.
    await settled();
    return logs.length === 0 ? 'No log notifications received' : logs.length < 3 ? `Expected at least 3 log messages, got ${logs.length}` : undefined;
  },
  'tools-call-error': async (c) => {
    const r = await sdk.callTool(c, { name: 'test_error_handling', arguments: {} }, rq);
    if (r.isError !== true) return 'Tool did not return isError: true';
    return r.content?.length > 0 && r.content[0].text ? undefined : 'Error result missing error message';
  },
  'tools-call-with-progress': async (c) => {
    const p = [];
    // The runner sets _meta.progressToken 'progress-test-1'; the SDK replaces it with
    // the request id when onprogress is given, as here. The runner counts what reaches
    // onprogress; over stdio both SDK clients drop a progress notification that comes
    // in the same read as the response (they run notification handlers a microtask
    // later, after the response removed the request's progress handler: about 1 run
    // in 6), so this counts the notifications with a handler of its own instead.
    sdk.onNotification(c, 'notifications/progress', (n) => { p.push(n.params); });
    await sdk.callTool(c, { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'progress-test-1' } },
      { ...rq, onprogress: () => {} });
    await settled();
    if (p.length === 0) return 'No progress notifications received';
    if (p.length < 3) return `Expected at least 3 progress notifications, got ${p.length}`;
    return p[0].progress <= p[1].progress && p[1].progress <= p[2].progress ? undefined : 'Progress values should be increasing';
  },
  'tools-call-sampling': (c) => callAsking(c, 'sampling/createMessage', 'sampling',
    { role: 'assistant', content: { type: 'text', text: 'This is a test response from the client' }, model: 'test-model', stopReason: 'endTurn' },
    { name: 'test_sampling', arguments: { prompt: 'Test prompt for sampling' } }),
  'tools-call-elicitation': (c) => callAsking(c, 'elicitation/create', 'elicitation',
    { action: 'accept', content: { username: 'testuser', email: 'test@example.com' } },
    { name: 'test_elicitation', arguments: { message: 'Please provide your information' } }),
  'json-schema-2020-12': async (c) => {
    const r = await c.listTools(undefined, rq);
    const t = r.tools?.find((x) => x.name === 'json_schema_2020_12_tool');
    if (!t) return `Tool 'json_schema_2020_12_tool' not found`;
    const s = t.inputSchema, e = [];
    if (s.$schema !== 'https://json-schema.org/draft/2020-12/schema') e.push(`$schema: ${JSON.stringify(s.$schema)}`);
    if (!s.$defs || !('address' in s.$defs)) e.push('$defs.address missing');
    if (s.additionalProperties !== false) e.push(`additionalProperties: ${JSON.stringify(s.additionalProperties)}`);
    return errs(e);
  },
  'elicitation-sep1034-defaults': async (c) => {
    let req = null;
    sdk.onRequest(c, 'elicitation/create', async (r) => {
      req = r;
      return { action: 'accept', content: { name: 'Jane Smith', age: 25, score: 88.0, status: 'inactive', verified: false } };
    });
    await sdk.callTool(c, { name: 'test_elicitation_sep1034_defaults', arguments: {} }, rq);
    if (!req) return 'Server did not request elicitation from client';
    const p = req.params?.requestedSchema?.properties || {}, e = [];
    const want = { name: ['string', 'John Doe'], age: ['integer', 30], score: ['number', 95.5], status: ['string', 'active'], verified: ['boolean', true] };
    for (const [k, [type, def]] of Object.entries(want)) {
      if (!p[k]) { e.push(`Missing field "${k}"`); continue; }
      if (p[k].type !== type) e.push(`${k}: expected type "${type}", got "${p[k].type}"`);
      if (p[k].default !== def) e.push(`${k}: expected default ${JSON.stringify(def)}, got ${JSON.stringify(p[k].default)}`);
    }
    if (p.status && !(Array.isArray(p.status.enum) && p.status.enum.includes(p.status.default))) e.push('status: enum missing or default not in it');
    return errs(e);
  },
  'elicitation-sep1330-enums': async (c) => {
    let req = null;
    sdk.onRequest(c, 'elicitation/create', async (r) => {
      req = r;
      return { action: 'accept', content: { untitledSingle: 'option1', titledSingle: 'value1', legacyEnum: 'opt1', untitledMulti: ['option1', 'option2'], titledMulti: ['value1', 'value2'] } };
    });
    await sdk.callTool(c, { name: 'test_elicitation_sep1330_enums', arguments: {} }, rq);
    if (!req) return 'Server did not request elicitation from client';
    const p = req.params?.requestedSchema?.properties || {}, e = [];
    const titled = (l) => Array.isArray(l) && l.every((x) => typeof x.const === 'string' && typeof x.title === 'string');
    const us = p.untitledSingle, ts = p.titledSingle, le = p.legacyEnum, um = p.untitledMulti, tm = p.titledMulti;
    if (!(us && us.type === 'string' && Array.isArray(us.enum) && !us.oneOf && !us.enumNames)) e.push('untitledSingle');
    if (!(ts && ts.type === 'string' && titled(ts.oneOf) && !ts.enum)) e.push('titledSingle');
    if (!(le && le.type === 'string' && Array.isArray(le.enum) && Array.isArray(le.enumNames) && le.enumNames.length === le.enum.length)) e.push('legacyEnum');
    if (!(um && um.type === 'array' && um.items?.type === 'string' && Array.isArray(um.items?.enum) && !um.items?.anyOf)) e.push('untitledMulti');
    if (!(tm && tm.type === 'array' && titled(tm.items?.anyOf) && !tm.items?.enum)) e.push('titledMulti');
    return e.length ? `bad enum schemas: ${e.join(', ')}` : undefined;
  },
  'resources-list': async (c) => everyHas((await c.listResources(undefined, rq)).resources, 'resources', 'Resource', ['uri', 'name']),
  'resources-read-text': (c) => readsContent(c, 'test://static-text', 'text'),
  'resources-read-binary': (c) => readsContent(c, 'test://static-binary', 'blob'),
  'resources-templates-read': async (c) => {
    const r = await c.readResource({ uri: 'test://template/123/data' }, rq);
    const k = r.contents?.[0];
    if (!k) return 'contents array is empty';
    if (!k.uri) return 'Content missing uri';
    if (!('text' in k) && !('blob' in k)) return 'Content missing text or blob';
    return 'text' in k && !k.text.includes('123') ? 'Parameter substitution not reflected in content' : undefined;
  },
  'resources-subscribe': async (c) => { await c.subscribeResource({ uri: 'test://watched-resource' }, rq); },
  'resources-unsubscribe': async (c) => {
    await c.subscribeResource({ uri: 'test://watched-resource' }, rq);
    await c.unsubscribeResource({ uri: 'test://watched-resource' }, rq);
  },
  'prompts-list': async (c) => everyHas((await c.listPrompts(undefined, rq)).prompts, 'prompts', 'Prompt', ['name', 'description']),
  'prompts-get-simple': async (c) => {
    const r = await c.getPrompt({ name: 'test_simple_prompt' }, rq);
    if (!r.messages?.length) return 'messages array is empty';
    const e = [];
    r.messages.forEach((m, i) => { if (!m.role) e.push(`Message ${i}: missing role`); if (!m.content) e.push(`Message ${i}: missing content`); });
    return errs(e);
  },
  'prompts-get-with-args': async (c) => {
    const r = await c.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } }, rq);
    const s = JSON.stringify(r.messages), e = [];
    if (!s.includes('testValue1')) e.push('arg1 not substituted in prompt');
    if (!s.includes('testValue2')) e.push('arg2 not substituted in prompt');
    return errs(e);
  },
  'prompts-get-embedded-resource': async (c) => {
    const r = await c.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } }, rq);
    return r.messages.some((m) => m.content?.type === 'resource' || m.content?.resource !== undefined) ? undefined : 'No embedded resource found in prompt';
  },
  'prompts-get-with-image': async (c) => {
    const r = await c.getPrompt({ name: 'test_prompt_with_image' }, rq);
    return r.messages.some((m) => m.content?.type === 'image' && m.content?.data && m.content?.mimeType) ? undefined : 'No image content found in prompt';
  },
};

// ---- the modern suite (2026-07-28): name -> async (conn) => error or undefined ----

const modern = {
  'modern-connect': async (conn) => {
    const v = conn.client.getNegotiatedProtocolVersion();
    return v === opts.era ? undefined : `negotiated ${v}, not ${opts.era}`;
  },
  'modern-tools-list': async (conn) => {
    const r = await conn.client.listTools(undefined, rq);
    return r.tools?.some((t) => t.name === 'test_simple_text') ? undefined : 'test_simple_text is not listed';
  },
  'modern-tools-call': async (conn) => {
    const r = await sdk.callTool(conn.client, { name: 'test_simple_text', arguments: {} }, rq);
    const t = r.content?.find((x) => x.type === 'text');
    return !r.isError && t?.text ? undefined : `unexpected result ${JSON.stringify(r)}`;
  },
  // The client matches the acknowledgement to its listen request by the request's
  // id (a string, "listen:0"): one the client cannot match leaves listen() waiting.
  'modern-listen': async (conn) => {
    const ack = sent(conn, 'notifications/subscriptions/acknowledged');
    let sub, failed;
    const listening = conn.client.listen({ toolsListChanged: true }, rq).then((s) => { sub = s; }, (e) => { failed = e; });
    const seen = await Promise.race([ack, listening]);
    await settled();
    if (failed) return `Failed: ${failed instanceof Error ? failed.message : String(failed)}`;
    if (sub) return void (await sub.close());
    if (!seen) return 'the server did not acknowledge subscriptions/listen';
    return `the client could not match the acknowledgement ${JSON.stringify(seen.params)} to its listen request`;
  },
  // The server must exit at the end of stdin even with a subscription open (close
  // checks that): its acknowledgement shows the subscription is open.
  'modern-exit-on-eof': async (conn) => {
    if (opts.url) return undefined;
    const ack = sent(conn, 'notifications/subscriptions/acknowledged');
    conn.client.listen({ toolsListChanged: true }, rq).catch(() => {});
    if (!(await ack)) return 'the server did not acknowledge subscriptions/listen';
  },
};

// ---- run ----------------------------------------------------------------------

const suite = opts.suite === 'modern' ? modern : legacy;
const names = opts.scenarios.length ? opts.scenarios : Object.keys(suite);
const results = [];
for (const name of names) {
  const run = suite[name];
  if (!run) usage(`no scenario ${name} in the ${opts.suite} suite`);
  let error;
  let conn;
  try {
    conn = await connect();
    error = await run(opts.suite === 'modern' ? conn : conn.client);
  } catch (e) {
    error = `Failed: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (conn) {
    const why = await close(conn).catch((e) => `closing: ${e instanceof Error ? e.message : String(e)}`);
    if (why) error = error ? `${error}; ${why}` : why;
  }
  results.push({ scenario: name, passed: !error, error });
  console.log(`${error ? '✗' : '✓'} ${name}${error ? `: ${error}` : ''}`);
}
const passed = results.filter((r) => r.passed).length;
console.log(`\n${passed}/${results.length} scenarios passed over ${opts.url ? 'HTTP' : 'stdio'} (SDK ${opts.sdk}, era ${opts.era}, ${opts.suite} suite)`);
if (opts.json) writeFileSync(opts.json, JSON.stringify({ sdk: opts.sdk, era: opts.era, suite: opts.suite, results }, null, 2));
process.exit(passed === results.length ? 0 : 1);
