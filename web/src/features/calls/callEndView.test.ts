import { LANGUAGE_CODES, type UserSummary } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import { realTranslator as translator } from '../../i18n/testing/realTranslator.ts';
import { type CallEndMessage, callEndMessage } from './callEndView.ts';
import { formatDuration } from './callHistoryView.ts';
import { type CallEnding, type CallOutcome, callReducer, initialCallState } from './callState.ts';

const bob: UserSummary = { id: 'bob', username: 'bob', display_name: 'Bob', avatar_url: null };

/** An ending of a call Alice placed to Bob; `overrides` shape the case. */
function ending(overrides: Partial<CallEnding>): CallEnding {
  return {
    callId: 'c1',
    peerUserId: 'bob',
    peer: null,
    isInitiator: true,
    connectedSeconds: null,
    endedBy: null,
    reason: 'hangup',
    ...overrides,
  };
}

/** The card's two lines in English, as CallEndNotice writes them. */
async function lines(message: CallEndMessage | null): Promise<string[]> {
  if (!message) return [];
  const { t } = await translator('en');
  const title =
    message.connectedSeconds === null
      ? t(message.titleKey)
      : `${t(message.titleKey)} · ${formatDuration(message.connectedSeconds)}`;
  return message.detailKey ? [title, t(message.detailKey, { name: 'Bob' })] : [title];
}

describe('callEndMessage', () => {
  it.each([
    ['busy', ['User is busy', 'Bob is in another call']],
    ['declined', ['Call was declined', 'Bob declined the call']],
    ['unavailable', ['User is unavailable', 'Bob is offline']],
    ['timeout', ['Call timeout', "Bob didn't answer"]],
    ['error', ['Call error occurred', 'The call to Bob failed']],
  ] as const)(
    "a call we placed ended %s: the spec's message, then Bob by name",
    async (outcome, expected) => {
      const message = callEndMessage(outcome, ending({ reason: outcome }));
      expect(message?.problem).toBe(true);
      expect(await lines(message)).toEqual(expected);
    },
  );

  it('the callee whose answered call failed before connecting is told it was the call from Bob', async () => {
    const message = callEndMessage('error', ending({ isInitiator: false, peer: bob, reason: 'error' }));
    expect(await lines(message)).toEqual(['Call error occurred', 'The call from Bob failed']);
  });

  it('an outcome without a call to name (a refused accept) keeps only its message', async () => {
    expect(await lines(callEndMessage('error', null))).toEqual(['Call error occurred']);
  });

  it('a connected call: "Call ended" with its length, and who ended it', async () => {
    const byBob = callEndMessage(null, ending({ connectedSeconds: 151, endedBy: 'peer' }));
    expect(byBob?.problem).toBe(false);
    expect(await lines(byBob)).toEqual(['Call ended · 2:31', 'Bob ended the call']);
    const byUs = callEndMessage(null, ending({ connectedSeconds: 3723, endedBy: 'self' }));
    expect(await lines(byUs)).toEqual(['Call ended · 1:02:03', 'You ended the call']);
  });

  it('a connected call whose connection failed: "Call ended", its length, and the line that broke', async () => {
    const failed = ending({ connectedSeconds: 9, reason: 'peer-connection-failed' });
    expect(await lines(callEndMessage('error', failed))).toEqual([
      'Call ended · 0:09',
      'The connection to Bob was lost',
    ]);
  });

  it('the other party hanging up before the call connected is said; our own cancel is not', async () => {
    expect(await lines(callEndMessage(null, ending({ isInitiator: false, endedBy: 'peer' })))).toEqual([
      'Call ended',
      'Bob ended the call',
    ]);
    expect(callEndMessage(null, ending({ endedBy: 'self' }))).toBeNull();
  });

  it('nothing for no ending, and nothing for the microphone prompt (it has its own dialog)', () => {
    expect(callEndMessage(null, null)).toBeNull();
    expect(callEndMessage('microphone-required', null)).toBeNull();
  });

  it("follows the reducer: Bob hangs up 2 min 31 s after answering Alice's call", async () => {
    const actions = [
      { type: 'place/started', targetUserId: 'bob' },
      { type: 'server/call-initiated', callId: 'c1', targetUserId: 'bob' },
      { type: 'server/call-accepted', callId: 'c1', at: 1_000 },
      { type: 'call/ended', callId: 'c1', reason: 'hangup', at: 152_400 },
      { type: 'call/cleared', callId: 'c1' },
    ] as const;
    const state = actions.reduce(callReducer, initialCallState);
    expect(await lines(callEndMessage(state.outcome, state.ending))).toEqual([
      'Call ended · 2:31',
      'Bob ended the call',
    ]);
  });

  it('every wording names the person in every language', async () => {
    const outcomes: CallOutcome[] = ['busy', 'declined', 'unavailable', 'timeout', 'error'];
    const messages = [
      ...outcomes.map((outcome) => callEndMessage(outcome, ending({}))),
      callEndMessage('error', ending({ isInitiator: false })),
      callEndMessage(null, ending({ connectedSeconds: 1, endedBy: 'peer' })),
      callEndMessage(null, ending({ connectedSeconds: 1 })),
    ];
    for (const language of LANGUAGE_CODES) {
      const { t } = await translator(language);
      for (const message of messages) {
        const key = message?.detailKey ?? '';
        expect(t(key, { name: 'Zoë' }), `${language} ${key}`).toContain('Zoë');
      }
    }
  });
});
