/**
 * The child process of ./run.test.ts: runs one extracted block (the path in argv[2]) after making every
 * server it starts listen on 127.0.0.1 on a free port (whatever port the block asks for), and tells the
 * parent over IPC: { listening: port } when the first server listens, { evaluated: true } once the
 * block's module has run to its end (top-level await included), { error: text } when it throws at start.
 * Errors after that (uncaught, unhandled rejections) crash the process as usual: a non-zero exit.
 */
import net from 'node:net';
import { pathToFileURL } from 'node:url';

const listen = net.Server.prototype.listen;
let reported = false;
net.Server.prototype.listen = function (...args) {
  const callback = typeof args.at(-1) === 'function' ? args.at(-1) : undefined;
  this.once('listening', () => {
    const address = this.address();
    if (reported || typeof address !== 'object' || address === null) return;
    reported = true;
    process.send?.({ listening: address.port });
  });
  return callback ? listen.call(this, 0, '127.0.0.1', callback) : listen.call(this, 0, '127.0.0.1');
};

try {
  await import(pathToFileURL(process.argv[2] ?? '').href);
  process.send?.({ evaluated: true });
} catch (error) {
  process.send?.({ error: String(error?.stack ?? error) });
  process.exitCode = 1;
}
