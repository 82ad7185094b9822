import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP endpoint on loopback that forwards every connection to an upstream
 * (resolved on the first connection, so a costly server can start lazily).
 * `kill()` drops every open connection at once and refuses new ones, the way
 * a crashed server looks to a client; `restart()` listens again on the same port.
 */
export class TcpRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private stalled = false;
  port = 0;

  private constructor(private readonly upstream: () => Promise<{ host: string; port: number }>) {}

  static async start(upstream: () => Promise<{ host: string; port: number }>, port = 0): Promise<TcpRelay> {
    const relay = new TcpRelay(upstream);
    await relay.listen(port);
    return relay;
  }

  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** From now on, bytes stop flowing in both directions (a hung server); connections stay open. */
  stall(on = true): void {
    this.stalled = on;
    for (const s of this.sockets) {
      if (on) s.pause();
      else s.resume();
    }
  }

  async kill(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restart(): Promise<void> {
    if (!this.server) await this.listen(this.port);
  }

  private listen(port: number): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private accept(client: Socket): void {
    client.pause();
    this.sockets.add(client);
    client.on('error', () => {});
    client.on('close', () => this.sockets.delete(client));
    this.upstream().then(
      ({ host, port }) => {
        if (client.destroyed) return;
        const up = connect(port, host);
        this.sockets.add(up);
        up.on('error', () => client.destroy());
        up.on('close', () => {
          this.sockets.delete(up);
          client.destroy();
        });
        client.on('close', () => up.destroy());
        client.pipe(up);
        up.pipe(client);
        if (this.stalled) up.pause();
        else client.resume();
      },
      () => client.destroy(),
    );
  }
}
