// A small server on npm fastmcp (the TypeScript framework), for mcpscope's end-to-end
// tests: a read-only lookup_weather and a destructive delete_note, the pair with which
// History's re-run once called the wrong tool; and echo_any, whose input schema is a
// bare {"type":"object"} (any arguments); and the prompt commit_message, whose kind
// argument is an enum (fastmcp completes it from the enum). Run: node fastmcp-notes.mjs (stdio), or
// PORT=0 node --require ./loopback.cjs fastmcp-notes.mjs http (Streamable HTTP).
import { FastMCP } from 'fastmcp';
import * as z from 'zod/v4';

const server = new FastMCP({ name: 'fastmcp-notes', version: '1.0.0' });

server.addTool({
  name: 'lookup_weather',
  description: 'The weather in a city (made up)',
  parameters: z.object({ city: z.string() }),
  annotations: { readOnlyHint: true },
  execute: async ({ city }) => `weather in ${city}: sunny`,
});

server.addTool({
  name: 'delete_note',
  description: 'Deletes a note by id',
  parameters: z.object({ id: z.number() }),
  annotations: { destructiveHint: true, readOnlyHint: false },
  execute: async (args) => `deleted note ${JSON.stringify(args)}`,
});

server.addTool({
  name: 'echo_any',
  description: 'Echoes whatever arguments it gets',
  execute: async (args) => `got ${JSON.stringify(args)}`,
});

server.addPrompt({
  name: 'commit_message',
  description: 'A commit message of one kind',
  arguments: [
    { name: 'kind', description: 'The kind of change', enum: ['feat', 'fix', 'docs', 'chore'], required: true },
    { name: 'subject', description: 'What changed' },
  ],
  load: async ({ kind, subject }) => `Write a ${kind} commit message about: ${subject ?? 'something'}`,
});

if (process.argv[2] === 'http') {
  await server.start({ transportType: 'httpStream', httpStream: { port: Number(process.env.PORT || 0), host: '127.0.0.1' } });
} else {
  await server.start({ transportType: 'stdio' });
}
