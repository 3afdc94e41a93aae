// A host for mcpscope tap's tests: the official TypeScript SDK v2 client over
// Streamable HTTP (http) or the legacy HTTP+SSE transport (sse), connecting to URL,
// listing the tools and calling one. Usage:
//   node tap-host.mjs http|sse legacy|modern URL TOOL ARGS_JSON
// TAP_BEARER, when set, goes as "Authorization: Bearer ..." on every request.
// Prints one JSON line: the negotiated version, the sorted tool names, the result
// (or the error the client saw: {error: {code, message}}).
import { Client, StreamableHTTPClientTransport, SSEClientTransport } from '@modelcontextprotocol/client';

const [mode, era, url, tool, args] = process.argv.slice(2);
const headers = process.env.TAP_BEARER ? { Authorization: `Bearer ${process.env.TAP_BEARER}` } : {};
const client = new Client(
  { name: 'tap-host-test', version: '2.4.0' },
  { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
);
const opts = { requestInit: { headers } };
const transport = mode === 'sse'
  ? new SSEClientTransport(new URL(url), opts)
  : new StreamableHTTPClientTransport(new URL(url), opts);
try {
  await client.connect(transport);
  const tools = await client.listTools();
  const result = await client.callTool({ name: tool, arguments: JSON.parse(args ?? '{}') }).then(
    (r) => r,
    (err) => ({ error: { code: err?.code ?? null, message: String(err?.message ?? err) } }),
  );
  const version = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
  // _meta carries times and ids that differ run to run.
  delete result._meta;
  console.log(JSON.stringify({ protocolVersion: version, tools: tools.tools.map((t) => t.name).sort(), result }));
} catch (err) {
  console.error('tap-host:', err?.stack ?? err);
  process.exitCode = 1;
} finally {
  await client.close();
}
