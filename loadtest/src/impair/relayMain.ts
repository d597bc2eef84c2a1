/**
 * The UDP relay as a process of its own, started by RelayProcess: its timers then fire on time
 * however busy the load tester's main process is driving pages (in the main process, a Playwright
 * worker with two browsers made an asked 80 ms delay measure 118 ms). Talks over the IPC channel:
 * says `ready` with its ports, answers `stats`, and ends when the channel closes, so a parent
 * that dies takes its relays with it.
 * Usage (by RelayProcess only): node --import tsx relayMain.ts ADDRESS SPEC_JSON
 */
import type { ImpairSpec } from '../results/types.ts';
import type { RelayReply, RelayRequest } from './RelayProcess.ts';
import { UdpRelay } from './UdpRelay.ts';

const [address, specJson] = process.argv.slice(2);
const reply = (message: RelayReply) => process.send?.(message);

try {
  const relay = await UdpRelay.start(address as string, JSON.parse(specJson as string) as ImpairSpec);
  process.on('message', (request: RelayRequest) => {
    if (request.type === 'stats') reply({ type: 'stats', id: request.id, stats: relay.stats() });
  });
  process.on('disconnect', () => {
    relay.close();
    process.exit(0);
  });
  reply({ type: 'ready', firstPort: relay.firstPort, lastPort: relay.lastPort });
} catch (error) {
  reply({ type: 'failed', message: (error as Error).message });
  process.exit(1);
}
