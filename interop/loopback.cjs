// Preloaded with `node --require ./loopback.cjs …` (or NODE_OPTIONS=--require …) by
// mcpscope's tests: every TCP server the process starts listens on 127.0.0.1 only,
// whatever host it asked for (the npm reference servers and the conformance suite's
// servers listen on all interfaces by default, and tests must not). Each listening
// server also reports its address on stderr, so a test can start a server with PORT=0
// and learn the port:
//   mcpscope-loopback: listening on 127.0.0.1:PORT
//
// Binding to a host name is asynchronous in Node, while code written for listen(0)
// may read server.address().port right away; so for port 0 a free loopback port is
// picked first (synchronously, by a short child process) and address() answers with
// it until the server is bound.
'use strict';
const net = require('net');
const { execFileSync } = require('child_process');

function freePort() {
  const script = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  const env = { ...process.env, NODE_OPTIONS: '' };
  return Number(execFileSync(process.execPath, ['-e', script], { env, encoding: 'utf8' }));
}

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  let port;
  if (args.length > 0 && typeof args[0] === 'object' && args[0] !== null && !Array.isArray(args[0])) {
    const opts = { ...args[0] };
    if (opts.path === undefined && opts.handle === undefined && opts.fd === undefined) {
      opts.host = '127.0.0.1';
      opts.port = Number(opts.port || 0) || freePort();
      port = opts.port;
    }
    args[0] = opts;
  } else if (args.length === 0 || typeof args[0] === 'function' || typeof args[0] === 'number' ||
             (typeof args[0] === 'string' && /^\d+$/.test(args[0])) || args[0] === undefined || args[0] === null) {
    // listen([port][, host][, backlog][, cb])
    const cb = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
    port = Number(args[0] || 0) || freePort();
    let backlog;
    if (typeof args[1] === 'number') backlog = args[1];
    else if (typeof args[2] === 'number') backlog = args[2];
    args = [port, '127.0.0.1'];
    if (backlog !== undefined) args.push(backlog);
    if (cb) args.push(cb);
  }
  if (port !== undefined) {
    const address = this.address;
    this.address = function () {
      return address.call(this) || { address: '127.0.0.1', family: 'IPv4', port };
    };
  }
  this.once('listening', () => {
    const a = this.address();
    if (a && typeof a === 'object') process.stderr.write(`mcpscope-loopback: listening on ${a.address}:${a.port}\n`);
  });
  return listen.apply(this, args);
};
