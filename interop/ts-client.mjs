// Lists and calls the tools of an MCP server with the official TypeScript SDK v2
// client, for mcpscope's interop tests. Usage:
//   node ts-client.mjs stdio legacy|modern CMD ARGS...
//   node ts-client.mjs http  legacy|modern URL
// Prints one JSON line: the negotiated version, the tool names, and two call results.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, era, ...rest] = process.argv.slice(2);
const client = new Client(
  { name: 'ts-interop', version: '1.0.0' },
  { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
);
const transport = mode === 'stdio'
  ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: 'inherit' })
  : new StreamableHTTPClientTransport(new URL(rest[0]));
try {
  await client.connect(transport);
  const tools = await client.listTools();
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'from the TypeScript SDK' } });
  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  const version = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
  console.log(JSON.stringify({ protocolVersion: version, tools: tools.tools.map((t) => t.name), echo, add }));
} catch (err) {
  console.error('ts-client:', err?.stack ?? err);
  process.exitCode = 1;
} finally {
  await client.close();
}
