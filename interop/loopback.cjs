// Preloaded with `node --require ./loopback.cjs …` (or NODE_OPTIONS=--require …) by
// mcpscope's tests: every TCP server the process starts listens on 127.0.0.1 only,
// whatever host it asked for (the npm reference servers and the conformance suite's
// servers listen on all interfaces by default, and tests must not). Each listening
// server also reports its address on stderr, so a test can start a server with PORT=0
// and learn the port:
//   mcpscope-loopback: listening on 127.0.0.1:PORT
//
// Binding to a host is asynchronous in Node (even an IP literal waits a tick), while
// code written for listen(port) may read server.address() and start a client at
// once: under load that client could connect before the port was bound and be
// refused. So the socket is bound here, synchronously, and handed to listen() as a
// handle: the port is bound before listen() returns, as it is without a host.
'use strict';
const net = require('net');

// boundHandle returns a TCP handle bound to 127.0.0.1:port, or null if it cannot.
function boundHandle(port) {
  let tcp;
  try {
    tcp = process.binding('tcp_wrap');
  } catch {
    return null;
  }
  const handle = new tcp.TCP(tcp.constants.SERVER);
  if (handle.bind('127.0.0.1', port) !== 0) {
    handle.close();
    return null;
  }
  return handle;
}

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  let port, backlog, cb;
  if (args.length > 0 && typeof args[0] === 'object' && args[0] !== null && !Array.isArray(args[0])) {
    const opts = args[0];
    if (opts.path !== undefined || opts.handle !== undefined || opts.fd !== undefined || (opts.constructor && opts.constructor.name === 'TCP')) {
      return listen.apply(this, args);
    }
    port = Number(opts.port || 0);
    backlog = opts.backlog;
    cb = typeof args[1] === 'function' ? args[1] : undefined;
  } else if (args.length === 0 || typeof args[0] === 'function' || typeof args[0] === 'number' ||
             (typeof args[0] === 'string' && /^\d+$/.test(args[0])) || args[0] === undefined || args[0] === null) {
    // listen([port][, host][, backlog][, cb])
    cb = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
    port = Number(args[0] || 0);
    if (typeof args[1] === 'number') backlog = args[1];
    else if (typeof args[2] === 'number') backlog = args[2];
  } else {
    return listen.apply(this, args); // a pipe path or a handle
  }
  this.once('listening', () => {
    const a = this.address();
    if (a && typeof a === 'object') process.stderr.write(`mcpscope-loopback: listening on ${a.address}:${a.port}\n`);
  });
  const handle = boundHandle(port);
  if (handle === null) {
    // Could not bind here: let Node bind (asynchronously) and report the error.
    const rest = [port, '127.0.0.1'];
    if (backlog !== undefined) rest.push(backlog);
    if (cb) rest.push(cb);
    return listen.apply(this, rest);
  }
  const opts = { handle };
  if (backlog !== undefined) opts.backlog = backlog;
  return cb ? listen.call(this, opts, cb) : listen.call(this, opts);
};
