/**
 * A private redis-server on a free loopback port, for tests that make Redis hang or
 * restart. Only this process is ever paused or killed, never a shared Redis.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './freePort.ts';

export class RedisProcess {
  #child: ChildProcess;

  private constructor(
    child: ChildProcess,
    readonly port: number,
  ) {
    this.#child = child;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts an empty, non-persistent Redis. */
  static async start(): Promise<RedisProcess> {
    const port = await freePort();
    const redis = new RedisProcess(await RedisProcess.#spawn(port), port);
    return redis;
  }

  /** Stops the process as SIGSTOP does: connections stay open, nothing answers. */
  pause(): void {
    this.#child.kill('SIGSTOP');
  }

  resume(): void {
    this.#child.kill('SIGCONT');
  }

  /**
   * Kills Redis and starts a new, empty one on the same port; `whileDown` runs in between (a
   * client may notice the outage and the return only after the new one answers).
   */
  async restartEmpty(whileDown?: () => Promise<void>): Promise<void> {
    await this.#kill();
    try {
      await whileDown?.();
    } finally {
      // Back even when a check made while it was down failed: the file's next tests need it.
      this.#child = await RedisProcess.#spawn(this.port);
    }
  }

  async stop(): Promise<void> {
    await this.#kill();
  }

  async #kill(): Promise<void> {
    const child = this.#child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  static async #spawn(port: number): Promise<ChildProcess> {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      if (await answersPing(port)) return child;
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('redis-server did not start');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => done(chunk.toString().startsWith('+PONG')));
  });
}
