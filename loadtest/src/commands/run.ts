/**
 * `run`: participants in one group room. Checks before anything starts (Chromium, the deployment,
 * the accounts, the room), then this shard's participants join at the ramp's pace, the first
 * `--speakers` of the room talking and the rest listening muted; every second each is sampled; at
 * the end the raw results, the report and the SLO verdicts.
 */
import { ROOM_LIMITS } from '@voice/protocol';
import { readAccounts } from '../accounts/accountsFile.ts';
import { SetupError } from '../cli/errors.ts';
import type { RunOptions } from '../cli/options.ts';
import { shardRange } from '../cli/shard.ts';
import { Deployment } from '../deployment/Deployment.ts';
import { runRoomParticipants } from '../participants/index.ts';
import type { ExitCode } from './exit.ts';
import { loadRun, preflight } from './loadRun.ts';

/** How long another shard waits for shard 0 to create the room. */
const ROOM_WAIT_MS = 60_000;

export async function run(options: RunOptions): Promise<ExitCode> {
  if (options.stage)
    throw new SetupError('--stage is not in this version of the tool (its speakers would need inviting)');
  const deployment = new Deployment(options.url);
  await preflight(options, deployment);
  const file = await readAccounts(options.accounts, options.url, options.participants);
  const { start, end } = shardRange(options.participants, options.shard);
  const admin = file.accounts[0];
  if (!admin) throw new SetupError(`${options.accounts} holds no accounts`);
  return loadRun(options, 'room', async (launch) => {
    const room = await findRoom(deployment, options, admin.token);
    const accounts = file.accounts.slice(start, end);
    return runRoomParticipants({
      ...launch,
      impaired: launch.impaired(accounts.length),
      roomId: room.id,
      accounts,
      // The room's speakers are its first accounts: this shard's share of them.
      speakers: Math.max(0, Math.min(options.speakers, end) - start),
    });
  });
}

/** The room; shard 0 creates it with --create, the other shards wait for it. */
async function findRoom(deployment: Deployment, options: RunOptions, token: string) {
  const create =
    options.create && options.shard.index === 0
      ? {
          name: options.room,
          type: 'public' as const,
          maxParticipants: Math.min(ROOM_LIMITS.maxParticipants, Math.max(2, options.participants)),
          ...(options.k !== null && { loudest: options.k }),
        }
      : null;
  if (create || !options.create || options.shard.count === 1)
    return withLoudest(await deployment.room(token, options.room, create), options);
  const deadline = Date.now() + ROOM_WAIT_MS;
  for (;;) {
    try {
      return withLoudest(await deployment.room(token, options.room, null), options);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** The room as found or made, when it forwards the --k loudest voices asked (or --k was not given). */
function withLoudest<R extends { name: string; loudest: number }>(room: R, options: RunOptions): R {
  if (options.k === null || room.loudest === options.k) return room;
  throw new SetupError(
    `room '${room.name}' forwards the ${room.loudest} loudest voices, not --k ${options.k}: change it in the room's settings, or run with --create and a new --room`,
  );
}
