// A stdio MCP server on the official TypeScript SDK v2 (@modelcontextprotocol/server)
// that reports the trace context (SEP-414: params._meta.traceparent / tracestate) of
// every request it receives, for mcpscope's --traceparent tests:
//   node ts-trace-server.mjs
// Tools: seen (the method, traceparent and tracestate of every request so far, this
// call included, as JSON text), traced (sends a log message whose _meta carries the
// server's own traceparent, SERVER_TRACEPARENT below, then answers "traced").
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

export const SERVER_TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

const seen = [];
const server = new McpServer({ name: 'ts-v2-trace', version: '1.0.0' }, { capabilities: { logging: {} } });
server.registerTool('seen', {
  description: 'The trace context of every request received so far, as JSON',
  inputSchema: z.object({}),
}, async () => ({ content: [{ type: 'text', text: JSON.stringify(seen) }] }));
server.registerTool('traced', {
  description: 'Sends a log message carrying the server\'s own traceparent in its _meta',
  inputSchema: z.object({}),
}, async (_args, ctx) => {
  await ctx.mcpReq.notify({
    method: 'notifications/message',
    params: { level: 'info', logger: 'trace', data: 'work done in the server\'s span', _meta: { traceparent: SERVER_TRACEPARENT } },
  });
  return { content: [{ type: 'text', text: 'traced' }] };
});

const transport = new StdioServerTransport();
await server.connect(transport);
// Every request as it arrives, before the SDK handles it (initialize and the lists
// included, which no tool handler sees).
const handle = transport.onmessage;
transport.onmessage = (msg, extra) => {
  if (msg && typeof msg.method === 'string' && msg.id !== undefined) {
    const meta = (msg.params && msg.params._meta) || {};
    seen.push({ method: msg.method, traceparent: meta.traceparent ?? null, tracestate: meta.tracestate ?? null });
  }
  handle(msg, extra);
};
