/**
 * The shipped docker-compose.yml must hold the largest room the API allows: ports are seats
 * (RTC_LIMITS.portsPerMember a member, one for a stage's audience), a room grows across the
 * workers, so the media server's default range split between any number of workers still
 * seats ROOM_LIMITS.maxParticipants members, or a stage's maxStageParticipants listeners.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOM_LIMITS, RTC_LIMITS } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import { splitPortRange } from './portRanges.ts';

const compose = readFileSync(path.resolve(import.meta.dirname, '../../docker-compose.yml'), 'utf8');

/** The `media-server:` service's block: from its key to the next service at the same depth. */
function serviceBlock(name: string): string {
  const start = compose.indexOf(`\n  ${name}:\n`);
  if (start < 0) throw new Error(`docker-compose.yml has no service ${name}`);
  const rest = compose.slice(start + 1);
  const next = rest.slice(1).search(/\n {2}[a-z][a-z-]*:\n/);
  return next < 0 ? rest : rest.slice(0, next + 1);
}

function defaultOf(block: string, variable: string): number {
  const match = block.match(new RegExp(`\\$\\{${variable}:-(\\d+)\\}`));
  if (!match) throw new Error(`no default for ${variable}`);
  return Number(match[1]);
}

describe('the shipped docker-compose.yml', () => {
  const media = serviceBlock('media-server');

  it("runs the media server on the host's network (no per-port proxy, no NAT before its candidates)", () => {
    expect(media).toMatch(/^ {4}network_mode: host$/m);
    expect(media).not.toMatch(/^ {4}ports:/m);
  });

  it('seats a room of the largest size on any number of workers, and a stage of the largest audience', () => {
    const min = defaultOf(media, 'RTC_MIN_PORT');
    const max = defaultOf(media, 'RTC_MAX_PORT');
    for (const workers of [1, 2, 4, 8, 16, 64]) {
      const ranges = splitPortRange(min, max, workers);
      const ports = ranges.map((range) => range.rtcMaxPort - range.rtcMinPort + 1);
      const members = ports.reduce((sum, n) => sum + Math.floor(n / RTC_LIMITS.portsPerMember), 0);
      expect(members, `${workers} workers`).toBeGreaterThanOrEqual(ROOM_LIMITS.maxParticipants);
      const listeners = ports.reduce((sum, n) => sum + n, 0);
      expect(listeners, `${workers} workers`).toBeGreaterThanOrEqual(ROOM_LIMITS.maxStageParticipants);
    }
  });
});
