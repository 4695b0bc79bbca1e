/**
 * Preloaded (`node --import`) into a gateway process by the start-up stop test: the process sends
 * itself SIGTERM the moment its first HTTP server listens, before it answers anything (an
 * orchestrator restarting it as soon as its port opens). The port probe before it (a plain
 * net.Server in src/main.ts) does not count. Nothing in the gateway knows about it.
 */
import http from 'node:http';
import net from 'node:net';

const listen = net.Server.prototype.listen as (...args: unknown[]) => net.Server;
let sent = false;

net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  if (this instanceof http.Server)
    this.once('listening', () => {
      if (sent) return;
      sent = true;
      process.kill(process.pid, 'SIGTERM');
    });
  return listen.apply(this, args);
} as typeof net.Server.prototype.listen;
