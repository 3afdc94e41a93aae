// Lists and calls the tools of an MCP server with the official TypeScript SDK v2
// client, for mcpscope's interop tests. Usage:
//   node ts-client.mjs stdio legacy|modern CMD ARGS...
//   node ts-client.mjs http  legacy|modern URL
// Prints one JSON line: the negotiated version, the tool names, two call results,
// then, when the server has them (mcpscope's host does), the skills' names from
// skills/list and a plain call of the research tool (its result, or the error the
// client saw: {error: {code, message}}).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

// outcome is what a request gave: its result, or the error the client raised.
const outcome = (p) => p.then(
  (result) => result,
  (err) => ({ error: { code: err?.code ?? null, message: String(err?.message ?? err) } }),
);

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
  const out = { protocolVersion: version, tools: tools.tools.map((t) => t.name), echo, add };
  const skills = new SkillsClient(client);
  if (skills.supported) {
    const listed = await outcome(skills.list());
    out.skills = listed.error ? listed : listed.skills.map((s) => s.frontmatter?.name);
  }
  if (out.tools.includes('research')) {
    out.research = await outcome(client.callTool({ name: 'research', arguments: { topic: 'owls', delayMs: 1 } }));
  }
  console.log(JSON.stringify(out));
} catch (err) {
  console.error('ts-client:', err?.stack ?? err);
  process.exitCode = 1;
} finally {
  await client.close();
}
