// An MCP Apps server (the io.modelcontextprotocol/ui extension) over stdio, built with
// the official ext-apps server helpers on the TypeScript SDK v2, for mcpscope's tests:
//   node apps-server.mjs
// Tools: weather (an app: ui://weather/view.html, a well-formed UI resource with a CSP
// and a permission), broken_app (its ui:// resource has the wrong MIME type and a CSP
// that allows any origin), missing_app (names a ui:// resource that does not exist),
// plain (no app).
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { registerAppTool, registerAppResource, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'apps-interop', version: '1.0.0' });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

registerAppTool(server, 'weather', {
  description: 'Shows the weather for a city in an interactive view',
  inputSchema: z.object({ city: z.string() }),
  annotations: { readOnlyHint: true },
  _meta: { ui: { resourceUri: 'ui://weather/view.html', visibility: ['model', 'app'] } },
}, async ({ city }) => text(`sunny in ${city}`));
registerAppResource(server, 'Weather view', 'ui://weather/view.html', { description: 'The weather view' }, async () => ({
  contents: [{
    uri: 'ui://weather/view.html', mimeType: RESOURCE_MIME_TYPE,
    text: '<!doctype html><html><body><h1>Weather</h1><script>/* app */</script></body></html>',
    _meta: { ui: { csp: { connectDomains: ['https://api.weather.example'], resourceDomains: ['https://cdn.weather.example'] }, permissions: { geolocation: {} }, prefersBorder: true } },
  }],
}));

registerAppTool(server, 'broken_app', {
  description: 'An app whose view is served wrong',
  inputSchema: z.object({}),
  _meta: { ui: { resourceUri: 'ui://broken/view.html' } },
}, async () => text('broken'));
server.registerResource('Broken view', 'ui://broken/view.html', { mimeType: 'text/html' }, async () => ({
  contents: [{
    uri: 'ui://broken/view.html', mimeType: 'text/html', text: '<html></html>',
    _meta: { ui: { csp: { connectDomains: ['*'] }, permissions: { telepathy: {} } } },
  }],
}));

registerAppTool(server, 'missing_app', {
  description: 'An app whose view does not exist',
  inputSchema: z.object({}),
  _meta: { ui: { resourceUri: 'ui://missing/view.html' } },
}, async () => text('missing'));

server.registerTool('plain', { description: 'No app', inputSchema: z.object({}) }, async () => text('plain'));

await server.connect(new StdioServerTransport());
