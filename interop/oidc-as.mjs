// A real OAuth 2.1 authorization server for mcpscope's login tests: panva's
// oidc-provider (a certified OpenID Provider), configured the way an MCP deployment
// would use it:
//   - PKCE (S256) required for every client, authorization code only;
//   - open dynamic client registration (RFC 7591) and its management (RFC 7592);
//   - resource indicators (RFC 8707): a token asked for with resource=URL is a JWT
//     whose aud is that URL, with the resource's scope mcp:read;
//   - introspection (RFC 7662), revocation (RFC 7009), client credentials;
//   - refresh tokens only with offline_access, which OIDC Core §11 lets a client have
//     only with prompt=consent (oidc-provider drops offline_access otherwise);
//   - a login and consent that approve a fixed test user at once (no page to fill),
//     so that an HTTP client that follows redirects and keeps cookies (curl -L with
//     a cookie jar) is the "browser".
// Everything is kept in memory, and the signing key is made at each start: a restart
// forgets every registration and token, as an in-memory or reset authorization
// server does.
//
//   PORT=0 node --require ./loopback.cjs oidc-as.mjs [--ttl SECONDS] [--no-refresh]
//
// --ttl is the access tokens' lifetime (default 3600); --no-refresh issues no refresh
// token at all (an AS that does not do offline access). The static client
// "mcp-resource" (secret "mcp-resource-secret") is the resource server's, for
// introspection. When ready it prints "issuer http://127.0.0.1:PORT" on stdout.
// GET /test/log answers the token endpoint's requests so far (grant_type, resource,
// client_id, the error if any), every token it issued (so a test can check that
// none leaks), the client_id of each authorization request and of each client read
// (RFC 7592); it is for tests only.
import crypto from 'node:crypto';
import http from 'node:http';
import Provider from 'oidc-provider';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const ttl = Number(value('--ttl', '3600'));
const noRefresh = flag('--no-refresh');

const tokenLog = []; // one entry per token request
const authorizeLog = []; // the client_id of each authorization request (not the resumes after login and consent)
const clientReads = []; // the client_id of each client read (RFC 7592, GET /reg/ID)
const issued = []; // every token and secret handed out

let provider;
const server = http.createServer((req, res) => {
  if (!provider) {
    res.writeHead(503).end();
    return;
  }
  const u = new URL(req.url, 'http://x');
  if (u.pathname === '/test/log') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token: tokenLog, secrets: issued, authorize: authorizeLog, client_reads: clientReads }));
    return;
  }
  if (u.pathname === '/auth') authorizeLog.push(u.searchParams.get('client_id'));
  if (req.method === 'GET' && u.pathname.startsWith('/reg/')) clientReads.push(u.pathname.slice('/reg/'.length));
  if (u.pathname.startsWith('/interaction/')) {
    approve(req, res).catch((err) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`interaction failed: ${err}`);
    });
    return;
  }
  provider.callback()(req, res);
});

// approve answers the login and the consent prompts for the test user at once.
async function approve(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: 'test-user' } }, { mergeWithLastSubmission: false });
    return;
  }
  let grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const d = prompt.details;
  if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
  if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
  if (d.missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(d.missingResourceScopes)) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

// A signing key of this start only: after a restart, the tokens signed before no
// longer verify (the resource server fetches /jwks again for an unknown kid).
const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: crypto.randomUUID(), use: 'sig', alg: 'RS256' };

server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  provider = new Provider(issuer, {
    jwks: { keys: [signingKey] },
    clients: [{
      client_id: 'mcp-resource',
      client_secret: 'mcp-resource-secret',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    }],
    cookies: { keys: ['mcpscope-oidc-as-test-cookie-key'] },
    scopes: ['openid', 'offline_access', 'mcp:read'],
    claims: { openid: ['sub'] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    pkce: { required: () => true },
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      AuthorizationCode: 60,
      RefreshToken: 86400,
      Grant: 86400,
      Session: 86400,
      Interaction: 600,
    },
    issueRefreshToken: async (_ctx, client, code) => !noRefresh && client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      registrationManagement: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A request without resource gets no token for an MCP server: the refresh
        // too must name it (MCP requires resource in every token request).
        useGrantedResource: async () => false,
        getResourceServerInfo: async (_ctx, resourceIndicator) => ({
          scope: 'mcp:read',
          audience: resourceIndicator,
          accessTokenTTL: ttl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  // Log each token request and what it handed out.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/token' && ctx.method === 'POST') {
      const p = ctx.oidc?.params || {};
      const body = ctx.body || {};
      tokenLog.push({
        grant_type: p.grant_type, resource: p.resource, client_id: ctx.oidc?.client?.clientId,
        status: ctx.status, error: body.error, refresh_token_issued: !!body.refresh_token,
      });
    }
    const body = ctx.body;
    if (body && typeof body === 'object' && !Buffer.isBuffer(body)) {
      for (const k of ['access_token', 'refresh_token', 'id_token', 'client_secret', 'registration_access_token']) {
        if (typeof body[k] === 'string') issued.push(body[k]);
      }
    }
  });
  process.stdout.write(`issuer ${issuer}\n`);
});

process.on('SIGTERM', () => process.exit(0));
