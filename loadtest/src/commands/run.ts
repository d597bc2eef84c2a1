/**
 * `run`: participants in one group room. Checks before anything starts (Chromium, the deployment,
 * the accounts, the room), then this shard's participants join at the ramp's pace, the first
 * `--speakers` of the room talking and the rest listening muted; every second each is sampled; at
 * the end the raw results, the report and the SLO verdicts. With `--stage` the room is a stage:
 * the first account (its admin, or a moderator) hosts it from the start and invites the other
 * speakers as they raise their hands; the rest are its audience.
 */
import { ROOM_LIMITS, type Room } from '@voice/protocol';
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
  const deployment = new Deployment(options.url);
  await preflight(options, deployment);
  const file = await readAccounts(options.accounts, options.url, options.participants);
  const { start, end } = shardRange(options.participants, options.shard);
  const admin = file.accounts[0];
  if (!admin) throw new SetupError(`${options.accounts} holds no accounts`);
  return loadRun(options, 'room', async (launch) => {
    const room = checked(await findRoom(deployment, options, admin.token), options, admin.id);
    const accounts = file.accounts.slice(start, end);
    return runRoomParticipants({
      ...launch,
      impaired: launch.impaired(accounts.length),
      roomId: room.id,
      accounts,
      // The room's speakers are its first accounts: this shard's share of them.
      speakers: Math.max(0, Math.min(options.speakers, end) - start),
      ...(options.stage && {
        stage: {
          host: start === 0,
          invite: file.accounts.slice(1, options.speakers).map((account) => account.displayName),
        },
      }),
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
          maxParticipants: Math.min(
            options.stage ? ROOM_LIMITS.maxStageParticipants : ROOM_LIMITS.maxParticipants,
            Math.max(2, options.participants),
          ),
          ...(options.k !== null && { loudest: options.k }),
          ...(options.stage && { stage: true }),
        }
      : null;
  if (create || !options.create || options.shard.count === 1)
    return deployment.room(token, options.room, create);
  const deadline = Date.now() + ROOM_WAIT_MS;
  for (;;) {
    try {
      return await deployment.room(token, options.room, null);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/**
 * The room as found or made, when it is what the flags ask: it forwards the --k loudest voices
 * (when --k was given), it is a stage exactly when --stage was given, and on a stage the first
 * account (`host`) may invite the speakers (the room's admin or one of its moderators).
 */
function checked<R extends Pick<Room, 'name' | 'loudest' | 'stage' | 'admin' | 'moderators'>>(
  room: R,
  options: RunOptions,
  host: string,
): R {
  const name = `room '${room.name}'`;
  if (options.k !== null && room.loudest !== options.k)
    throw new SetupError(
      `${name} forwards the ${room.loudest} loudest voices, not --k ${options.k}: change it in the room's settings, or run with --create and a new --room`,
    );
  if (room.stage && !options.stage)
    throw new SetupError(`${name} is a stage: run with --stage (the first account invites the speakers)`);
  if (!room.stage && options.stage)
    throw new SetupError(`${name} is not a stage: run without --stage, or with --create and a new --room`);
  if (room.stage && options.speakers > 1 && room.admin.id !== host && !room.moderators.includes(host))
    throw new SetupError(
      `${name} is a stage whose admin is not ${options.accounts}'s first account, who invites the speakers: make that account a moderator, or run with --create and a new --room`,
    );
  return room;
}
