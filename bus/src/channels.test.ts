import { MEDIA_ANNOUNCE } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import { mediaAnnounceChannel, roomCommandsChannel, roomLinksChannel } from './channels.ts';

// Bus messages are input like any other: the rooms a media server announces and the resyncs
// the API asks for are checked on arrival.

const announcement = { id: 'm1', url: 'ws://media.test/rtc', load: { workers: 1, routers: 1 } };
const accepts = (schema: { safeParse(value: unknown): { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

describe('mediaAnnounceChannel', () => {
  it('takes an announcement with or without its rooms', () => {
    expect(accepts(mediaAnnounceChannel.schema, announcement)).toBe(true);
    expect(accepts(mediaAnnounceChannel.schema, { ...announcement, rooms: [] })).toBe(true);
    expect(accepts(mediaAnnounceChannel.schema, { ...announcement, rooms: [{ id: 'r1', peers: 3 }] })).toBe(
      true,
    );
  });

  it.each([
    ['not a list', { r1: 3 }],
    ['a room without an id', [{ peers: 1 }]],
    ['an empty id', [{ id: '', peers: 1 }]],
    ['an id of 201 characters', [{ id: 'x'.repeat(201), peers: 1 }]],
    ['a negative count', [{ id: 'r1', peers: -1 }]],
    ['a fractional count', [{ id: 'r1', peers: 1.5 }]],
    ['a count as text', [{ id: 'r1', peers: '1' }]],
    ['null', null],
    [
      'too many rooms',
      Array.from({ length: MEDIA_ANNOUNCE.maxRooms + 1 }, (_, i) => ({ id: `r${i}`, peers: 0 })),
    ],
  ])('refuses rooms that are %s', (_what, rooms) => {
    expect(accepts(mediaAnnounceChannel.schema, { ...announcement, rooms })).toBe(false);
  });
});

describe('mediaAnnounceChannel load', () => {
  it('takes a load with or without its members and consumers', () => {
    const load = { workers: 2, routers: 3, members: 7, consumers: 30, cpu: 0.75 };
    expect(accepts(mediaAnnounceChannel.schema, { ...announcement, load })).toBe(true);
    expect(mediaAnnounceChannel.schema.parse({ ...announcement, load }).load).toEqual(load);
  });

  it.each([
    ['negative members', { members: -1 }],
    ['fractional consumers', { consumers: 0.5 }],
    ['consumers as text', { consumers: '3' }],
    ['too many consumers', { consumers: 1_000_001 }],
    ['null members', { members: null }],
    ['negative CPU', { cpu: -0.1 }],
    ['CPU as text', { cpu: '0.5' }],
    ['CPU past any machine', { cpu: 10_001 }],
  ])('refuses a load with %s', (_what, extra) => {
    expect(
      accepts(mediaAnnounceChannel.schema, { ...announcement, load: { ...announcement.load, ...extra } }),
    ).toBe(false);
  });
});

describe('roomCommandsChannel resync', () => {
  const resync = { type: 'resync', serverId: 'm1', roomIds: ['r1', 'r2'] };

  it('takes a resync for some rooms of one server', () => {
    expect(accepts(roomCommandsChannel.schema, resync)).toBe(true);
  });

  it.each([
    ['no server', { ...resync, serverId: undefined }],
    ['an empty server id', { ...resync, serverId: '' }],
    ['no rooms', { ...resync, roomIds: [] }],
    ['rooms that are not a list', { ...resync, roomIds: 'r1' }],
    ['a room id that is not text', { ...resync, roomIds: [1] }],
    [
      'too many rooms',
      { ...resync, roomIds: Array.from({ length: MEDIA_ANNOUNCE.maxRooms + 1 }, (_, i) => `r${i}`) },
    ],
  ])('refuses one with %s', (_what, command) => {
    expect(accepts(roomCommandsChannel.schema, command)).toBe(false);
  });
});

describe('roomCommandsChannel inCall', () => {
  it('takes one person', () => {
    expect(accepts(roomCommandsChannel.schema, { type: 'inCall', peerId: 'u1' })).toBe(true);
  });

  it.each([
    ['no person', { type: 'inCall' }],
    ['an empty person', { type: 'inCall', peerId: '' }],
    ['a person that is not text', { type: 'inCall', peerId: 7 }],
    ['a list of people', { type: 'inCall', peerId: ['u1'] }],
  ])('refuses one with %s', (_what, command) => {
    expect(accepts(roomCommandsChannel.schema, command)).toBe(false);
  });
});

describe('roomLinksChannel members', () => {
  const members = { type: 'members', roomId: 'r1', from: 'm1', peers: [], left: [], all: true };

  it('takes all members, with or without the ask to say all back', () => {
    expect(accepts(roomLinksChannel.schema, members)).toBe(true);
    expect(accepts(roomLinksChannel.schema, { ...members, ask: true })).toBe(true);
  });

  it.each([
    ['false', false],
    ['text', 'yes'],
    ['a number', 1],
    ['null', null],
  ])('refuses an ask that is %s', (_what, ask) => {
    expect(accepts(roomLinksChannel.schema, { ...members, ask })).toBe(false);
  });
});
