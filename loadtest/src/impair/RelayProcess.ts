/**
 * The parent's handle on a relay process (relayMain.ts): starts it, asks it for its figures,
 * ends it. The child runs the TypeScript through tsx, found from this package, so it starts the
 * same whatever the working directory of the load tester.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ImpairSpec } from '../results/types.ts';
import type { RelayStats } from './UdpRelay.ts';

export type RelayRequest = { type: 'stats'; id: number };
export type RelayReply =
  | { type: 'ready'; firstPort: number; lastPort: number }
  | { type: 'failed'; message: string }
  | { type: 'stats'; id: number; stats: RelayStats };

const READY_TIMEOUT_MS = 10_000;
const STATS_TIMEOUT_MS = 5000;
const STOP_TIMEOUT_MS = 5000;
const RELAY_MAIN = fileURLToPath(new URL('./relayMain.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export class RelayProcess {
  #nextId = 0;
  readonly #waiting = new Map<number, (stats: RelayStats) => void>();

  private constructor(
    private readonly child: ChildProcess,
    /** The front port range the host redirects the namespace's UDP to. */
    readonly firstPort: number,
    readonly lastPort: number,
  ) {
    child.on('message', (message: RelayReply) => {
      if (message.type !== 'stats') return;
      this.#waiting.get(message.id)?.(message.stats);
      this.#waiting.delete(message.id);
    });
  }

  static async start(address: string, spec: ImpairSpec): Promise<RelayProcess> {
    const child = spawn(
      process.execPath,
      ['--import', TSX_LOADER, RELAY_MAIN, address, JSON.stringify(spec)],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    try {
      const ready = await new Promise<{ firstPort: number; lastPort: number }>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error('the UDP relay did not start in time')),
          READY_TIMEOUT_MS,
        );
        child.once('message', (message: RelayReply) => {
          clearTimeout(timer);
          if (message.type === 'ready') resolve(message);
          else
            reject(
              new Error(
                `the UDP relay failed: ${message.type === 'failed' ? message.message : message.type}`,
              ),
            );
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`the UDP relay exited with ${code}`));
        });
      });
      return new RelayProcess(child, ready.firstPort, ready.lastPort);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  stats(): Promise<RelayStats> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error('the UDP relay did not answer'));
      }, STATS_TIMEOUT_MS);
      this.#waiting.set(id, (stats) => {
        clearTimeout(timer);
        resolve(stats);
      });
      this.child.send({ type: 'stats', id } satisfies RelayRequest);
    });
  }

  /** Ends the relay (closing the channel is its signal to stop) and waits for it. Idempotent. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** For the exit hook, where nothing can be waited for. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
