// The command line: every bad flag refused with one clear line, good combinations typed.
import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.ts';
import { impairedCount } from './impair.ts';
import { parseArgs } from './parse.ts';
import { shardRange } from './shard.ts';

const context = {
  env: { INIT_CWD: '/home/tester' },
  cwd: '/elsewhere',
  now: new Date('2026-11-26T03:04:05.678Z'),
};
const parse = (...argv: string[]) => parseArgs(argv, context);
const RUN = [
  'run',
  '--url',
  'http://127.0.0.1:3000',
  '--room',
  'Town hall',
  '--participants',
  '8',
  '--speakers',
  '3',
  '--duration',
  '20s',
];
const CALLS = ['calls', '--url', 'http://127.0.0.1:3000', '--pairs', '4', '--duration', '60s'];

/** The UsageError `argv` throws: one line, no stack needed. */
function usageError(argv: string[], env: Record<string, string | undefined> = context.env): string {
  try {
    parseArgs(argv, { ...context, env });
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as UsageError).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

describe('parseArgs refuses', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['an unknown command', ['fly'], /unknown command 'fly'/],
    ['an unknown help topic', ['help', 'fly'], /unknown command 'fly'/],
    ['an unknown flag', [...RUN, '--speed', '3'], /run has no flag --speed/],
    ['a flag of another command', [...RUN, '--pairs', '3'], /run has no flag --pairs/],
    ['a repeated flag', [...RUN, '--room', 'Other'], /--room given twice/],
    ['a positional argument to run', [...RUN, 'extra'], /run takes no argument 'extra'/],
    ['a value-less flag', [...RUN, '--out'], /--out needs a value \(DIR\)/],
    ['a flag eaten as a value', ['run', '--url', '--room', 'x'], /--url needs a value/],
    ['a switch with a value', [...RUN, '--create=yes'], /--create is a switch/],
    ['a missing --url', RUN.filter((_, i) => i !== 1 && i !== 2), /run needs --url URL/],
    ['a missing --room', RUN.filter((_, i) => i !== 3 && i !== 4), /run needs --room NAME/],
    ['a missing --participants', RUN.filter((_, i) => i !== 5 && i !== 6), /run needs --participants N/],
    ['a missing --speakers', RUN.filter((_, i) => i !== 7 && i !== 8), /run needs --speakers S/],
    ['a missing --duration', RUN.slice(0, 9), /run needs --duration TIME/],
    ['a blank room', ['run', ...RUN.slice(1, 4), ' ', ...RUN.slice(5)], /--room must be 1 to 100/],
    ['a bad URL', ['run', '--url', 'nowhere', ...RUN.slice(3)], /--url 'nowhere' is not a URL/],
    ['a non-http URL', ['run', '--url', 'ftp://host', ...RUN.slice(3)], /not an http\(s\) URL/],
    ['a URL with a query', ['run', '--url', 'http://h/?a=1', ...RUN.slice(3)], /query or fragment/],
    [
      'participants not a number',
      [...RUN.slice(0, 6), 'x', ...RUN.slice(7)],
      /--participants 'x' is not a whole number/,
    ],
    ['zero participants', [...RUN.slice(0, 6), '0', ...RUN.slice(7)], /--participants must be at least 1/],
    [
      'a negative count',
      [...RUN.slice(0, 6), '-3', ...RUN.slice(7)],
      /--participants '-3' is not a whole number/,
    ],
    ['a fractional count', [...RUN.slice(0, 6), '2.5', ...RUN.slice(7)], /not a whole number/],
    [
      'speakers beyond participants',
      [...RUN.slice(0, 8), '9', ...RUN.slice(9)],
      /--speakers 9 is more than --participants 8/,
    ],
    ['per-browser below 1', [...RUN, '--per-browser', '0'], /--per-browser must be at least 1/],
    ['a bad duration', [...RUN.slice(0, 10), '20'], /--duration '20' is not a duration/],
    ['a zero duration', [...RUN.slice(0, 10), '0s'], /--duration '0s' is not a duration/],
    ['a duration in days', [...RUN.slice(0, 10), '2d'], /not a duration/],
    ['a bad ramp', [...RUN, '--ramp', 'fast'], /--ramp 'fast' is not a rate of joins/],
    ['a zero ramp', [...RUN, '--ramp', '0/s'], /--ramp '0\/s'/],
    ['k of zero', [...RUN, '--k', '0'], /--k must be at least 1/],
    ['a shard past its count', [...RUN, '--shard', '2/2'], /i counts from 0 and must be below n/],
    ['a shard of zero', [...RUN, '--shard', '0/0'], /n must be at least 1/],
    ['a shard not i/n', [...RUN, '--shard', 'half'], /--shard 'half' is not i\/n/],
    ['a bad SLO', [...RUN, '--slo', 'fast'], /--slo 'fast' is not metric<value/],
    ['an unknown SLO metric', [...RUN, '--slo', 'speedP95<3'], /unknown metric speedP95/],
    ['an SLO in the wrong unit', [...RUN, '--slo', 'lossP95<3ms'], /lossP95 is measured in %, not ms/],
    ['an impairment key', [...RUN, '--impair', 'drop=5%'], /--impair 'drop=5%' is not one of/],
    ['an impairment value', [...RUN, '--impair', 'loss=150%'], /--impair loss '150%' is not a percent/],
    ['an impairment rate', [...RUN, '--impair', 'rate=fast'], /--impair rate 'fast' is not a rate/],
    ['an impairment delay', [...RUN, '--impair', 'delay=80'], /--impair delay '80' is not a duration/],
    ['an impairment given twice', [...RUN, '--impair', 'loss=1%,loss=2%'], /--impair gives loss twice/],
    ['an empty impairment', [...RUN, '--impair', ''], /--impair '' is not one of/],
    ['a share without impairment', [...RUN, '--impair-share', '20%'], /--impair-share needs --impair/],
    [
      'a bad share',
      [...RUN, '--impair', 'loss=5%', '--impair-share', 'some'],
      /--impair-share 'some' is neither/,
    ],
    ['a zero share', [...RUN, '--impair', 'loss=5%', '--impair-share', '0%'], /more than 0%/],
    [
      'a share beyond the participants',
      [...RUN, '--impair', 'loss=5%', '--impair-share', '9'],
      /more than the 8 participants/,
    ],
    ['calls without pairs', CALLS.filter((_, i) => i !== 3 && i !== 4), /calls needs --pairs N/],
    ['calls with zero pairs', [...CALLS.slice(0, 4), '0', ...CALLS.slice(5)], /--pairs must be at least 1/],
    ['calls with a room', [...CALLS, '--room', 'x'], /calls has no flag --room/],
    [
      'calls with a share past the pairs',
      [...CALLS, '--impair', 'loss=5%', '--impair-share', '9'],
      /more than the 8/,
    ],
    ['seed without a count', ['seed', '--url', 'http://h', '--secret', 's'], /seed needs --count N/],
    [
      'seed with a bad prefix',
      ['seed', '--url', 'http://h', '--count', '3', '--secret', 's', '--prefix', 'lt-'],
      /--prefix 'lt-'/,
    ],
    ['cleanup without a URL', ['cleanup', '--secret', 's'], /cleanup needs --url URL/],
    ['merge without directories', ['merge'], /merge needs DIR…/],
    ['merge with a directory twice', ['merge', 'a', './a'], /merge names \/home\/tester\/a twice/],
    ['report without a directory', ['report'], /report needs DIR/],
    ['report with two directories', ['report', 'a', 'b'], /report takes one DIR, not 2/],
    ['report with a flag', ['report', 'a', '--out', 'b'], /report has no flag --out/],
  ];
  it.each(cases)('%s', (_name, argv, message) => {
    expect(usageError(argv)).toMatch(message);
  });

  it('seed and cleanup without a secret, in flags or environment', () => {
    expect(usageError(['seed', '--url', 'http://h', '--count', '3'], {})).toMatch(
      /seed needs the server's secret: --secret or LOADTEST_SECRET/,
    );
    expect(usageError(['cleanup', '--url', 'http://h'], {})).toMatch(/cleanup needs the server's secret/);
  });
});

describe('parseArgs accepts', () => {
  it('a minimal run, with the defaults', () => {
    expect(parse(...RUN)).toEqual({
      command: 'run',
      url: 'http://127.0.0.1:3000',
      room: 'Town hall',
      create: false,
      participants: 8,
      speakers: 3,
      rampPerSec: null,
      k: null,
      stage: false,
      durationMs: 20_000,
      perBrowser: null,
      out: '/home/tester/loadtest-results/run-2026-11-26T03-04-05Z',
      accounts: '/home/tester/loadtest-accounts.json',
      slo: 'failed<1%,heard>99%',
      impair: null,
      shard: { index: 0, count: 1 },
    });
  });

  it('a run with every flag, in both --flag value and --flag=value forms', () => {
    const options = parse(
      ...RUN,
      '--create',
      '--per-browser=4',
      '--ramp',
      '2.5/s',
      '--k',
      '3',
      '--stage',
      '--out',
      '/tmp/out',
      '--accounts=acc.json',
      '--slo',
      'joinP95<3s, lossP95<2%,mosP05>=3.8,heard>99%,failed<2',
      '--impair',
      'loss=5%,delay=80ms,jitter=20ms,rate=1mbit',
      '--impair-share',
      '20%',
      '--shard',
      '1/3',
    );
    expect(options).toMatchObject({
      create: true,
      perBrowser: 4,
      rampPerSec: 2.5,
      k: 3,
      stage: true,
      out: '/tmp/out',
      accounts: '/home/tester/acc.json',
      impair: { spec: { lossPct: 5, delayMs: 80, jitterMs: 20, rateKbit: 1000 }, share: { percent: 20 } },
      shard: { index: 1, count: 3 },
    });
  });

  it('durations in ms, s, m and h; a URL with a path keeps it, without the trailing slash', () => {
    for (const [text, ms] of [
      ['500ms', 500],
      ['2m', 120_000],
      ['1.5h', 5_400_000],
      ['90s', 90_000],
    ] as const)
      expect(parse(...RUN.slice(0, 10), text)).toMatchObject({ durationMs: ms });
    expect(parse('run', '--url', 'https://voice.example.org/app/', ...RUN.slice(3))).toMatchObject({
      url: 'https://voice.example.org/app',
    });
  });

  it('no speakers: the default SLO leaves out heard', () => {
    expect(parse(...RUN.slice(0, 8), '0', ...RUN.slice(9))).toMatchObject({ speakers: 0, slo: 'failed<1%' });
  });

  it('a default out per shard, and a count as the impaired share', () => {
    expect(parse(...RUN, '--shard', '0/2', '--impair', 'loss=10%', '--impair-share', '2')).toMatchObject({
      out: '/home/tester/loadtest-results/run-shard-0-of-2-2026-11-26T03-04-05Z',
      impair: { spec: { lossPct: 10 }, share: { count: 2 } },
    });
  });

  it('paths against the working directory when npm did not set INIT_CWD', () => {
    const options = parseArgs(['report', 'results'], { ...context, env: {} });
    expect(options).toEqual({ command: 'report', dir: '/elsewhere/results', png: true });
  });

  it('calls, seed (secret from the environment), cleanup, merge', () => {
    expect(parse(...CALLS, '--turn', '--per-browser', '2')).toMatchObject({
      command: 'calls',
      pairs: 4,
      turn: true,
      perBrowser: 2,
      durationMs: 60_000,
      slo: 'failed<1%,heard>99%',
    });
    expect(
      parseArgs(['seed', '--url', 'http://h:3000', '--count', '10'], {
        ...context,
        env: { LOADTEST_SECRET: 'env-secret' },
      }),
    ).toEqual({
      command: 'seed',
      url: 'http://h:3000',
      count: 10,
      prefix: 'lt_',
      secret: 'env-secret',
      out: '/elsewhere/loadtest-accounts.json',
    });
    expect(
      parse(
        'seed',
        '--url',
        'http://h',
        '--count',
        '3',
        '--secret',
        's',
        '--prefix',
        'bulk_',
        '--out',
        'a.json',
      ),
    ).toMatchObject({
      prefix: 'bulk_',
      secret: 's',
      out: '/home/tester/a.json',
    });
    expect(parse('cleanup', '--url', 'http://h', '--secret', 's')).toEqual({
      command: 'cleanup',
      url: 'http://h',
      prefix: 'lt_',
      secret: 's',
    });
    expect(parse('merge', 'a', '/abs/b', '--out', 'm')).toEqual({
      command: 'merge',
      dirs: ['/home/tester/a', '/abs/b'],
      out: '/home/tester/m',
      png: true,
    });
    expect(parse('report', 'r', '--no-png')).toMatchObject({ png: false });
  });

  it('--help globally and per command, listing every flag', () => {
    for (const argv of [[], ['--help'], ['-h'], ['help']]) {
      const options = parse(...argv);
      expect(options.command).toBe('help');
      const text = (options as { text: string }).text;
      for (const flag of [
        '--url',
        '--room',
        '--create',
        '--participants',
        '--speakers',
        '--per-browser',
        '--ramp',
        '--duration',
        '--k',
        '--stage',
        '--out',
        '--slo',
        '--impair',
        '--impair-share',
        '--shard',
        '--pairs',
        '--turn',
        '--count',
        '--prefix',
        '--secret',
      ])
        expect(text).toContain(flag);
    }
    const runHelp = parse('run', '--participants', 'x', '--help');
    expect(runHelp.command).toBe('help');
    expect((runHelp as { text: string }).text).toMatch(
      /^Usage: voice-loadtest run --url URL --room NAME \[--create\]/,
    );
    expect((parse('help', 'merge') as { text: string }).text).toContain('DIR…');
  });
});

describe('shares', () => {
  it('shardRange covers every item once, larger shares first', () => {
    const ranges = [0, 1, 2].map((index) => shardRange(10, { index, count: 3 }));
    expect(ranges).toEqual([
      { start: 0, end: 4 },
      { start: 4, end: 7 },
      { start: 7, end: 10 },
    ]);
  });

  it('impairedCount rounds a percent up and caps a count', () => {
    expect(impairedCount({ percent: 20 }, 3)).toBe(1);
    expect(impairedCount({ percent: 20 }, 10)).toBe(2);
    expect(impairedCount({ percent: 100 }, 7)).toBe(7);
    expect(impairedCount({ count: 2 }, 8)).toBe(2);
  });
});
