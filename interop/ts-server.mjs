// A tiny MCP server on the official TypeScript SDK v2 (@modelcontextprotocol/server),
// served over HTTP by createMcpHandler: stateless 2026-07-28 at /mcp, with the SDK's
// stateless fallback for 2025-era clients. For mcpscope's interop tests:
//   PORT=0 node --require ./loopback.cjs ts-server.mjs
// It listens on 127.0.0.1 and prints "mcpscope-loopback: listening on 127.0.0.1:PORT"
// (from the preload) to stderr. Tools: echo (text), add (structured result with an
// output schema), slow (progress notifications), fail (an error result).
import http from 'node:http';
import { Readable } from 'node:stream';
import { McpServer, ResourceTemplate, completable, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

function build() {
  const server = new McpServer({
    name: 'ts-v2-interop', version: '1.0.0',
    // serverInfo's display members, for the workbench's Servers view.
    websiteUrl: 'https://example.com/ts-v2-interop',
    icons: [{ src: 'https://example.com/ts-v2-interop.png', mimeType: 'image/png', sizes: ['48x48'] }],
  });
  server.registerTool('echo', {
    title: 'Echo',
    description: 'Echoes the text back',
    inputSchema: z.object({ text: z.string() }),
    annotations: { readOnlyHint: true },
  }, async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }));
  server.registerTool('add', {
    description: 'Adds two numbers; the sum is a structured result',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ sum: z.number() }),
  }, async ({ a, b }) => ({
    content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }],
    structuredContent: { sum: a + b },
  }));
  server.registerTool('slow', {
    description: 'Counts to steps, 20 ms apart, with a progress notification at each step',
    inputSchema: z.object({ steps: z.number().int().min(1).max(50) }),
  }, async ({ steps }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: `step ${i}` } });
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return { content: [{ type: 'text', text: `done after ${steps} steps` }] };
  });
  server.registerTool('fail', {
    description: 'Always returns an error result',
    inputSchema: z.object({}),
  }, async () => ({ isError: true, content: [{ type: 'text', text: 'this tool always fails' }] }));
  // Resources, a template and a prompt with completion, for the primitives tests.
  server.registerResource('note', 'ts://note', { title: 'A note', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'a note from the TS SDK v2' }] }));
  const fruits = ['apple', 'apricot', 'banana', 'cherry'];
  server.registerResource('fruit', new ResourceTemplate('ts://fruit/{name}', {
    list: undefined,
    complete: { name: (v) => fruits.filter((f) => f.startsWith(v)) },
  }), { title: 'Fruit', mimeType: 'text/plain' },
  async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `fruit: ${name}` }] }));
  server.registerPrompt('taste', {
    description: 'Asks about a fruit',
    argsSchema: z.object({ fruit: completable(z.string(), (v) => fruits.filter((f) => f.startsWith(v))) }),
  }, async ({ fruit }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `How does ${fruit} taste?` } }] }));
  return server;
}

const handler = createMcpHandler(build);

// A minimal node:http adapter for the web-standard handler.
const srv = http.createServer(async (req, res) => {
  try {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
      else if (v !== undefined) headers.set(k, v);
    }
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    const init = { method: req.method, headers, signal: ac.signal };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      init.body = Readable.toWeb(req);
      init.duplex = 'half';
    }
    const response = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, init));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  } catch (err) {
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end(String(err));
  }
});
srv.listen(Number(process.env.PORT || 0), '127.0.0.1');
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { srv.close(); handler.close().finally(() => process.exit(0)); setTimeout(() => process.exit(0), 500).unref(); });
