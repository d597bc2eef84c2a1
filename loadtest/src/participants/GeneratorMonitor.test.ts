// The generator's own cost read from /proc: a busy child process counts, an excluded one does
// not, memory covers the tree; and the default participants per browser for a few machines.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultPerBrowser } from './Generator.ts';
import { GeneratorMonitor, treePssMb } from './GeneratorMonitor.ts';

const GIB = 1024 ** 3;

/** A child process spinning on one core, with a 200 MB buffer it keeps touched. */
function busyChild(): ChildProcess {
  return spawn(
    process.execPath,
    [
      '-e',
      'const b = Buffer.alloc(200 * 1024 * 1024, 1); for (;;) { b[Math.floor(Math.random() * b.length)]++; }',
    ],
    { stdio: 'ignore' },
  );
}

async function sampleAfter(monitor: GeneratorMonitor, ms: number) {
  monitor.start();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const sample = monitor.sampleNow();
  monitor.stop();
  return sample;
}

describe('GeneratorMonitor', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it('counts a busy child in the CPU and memory of the tree, and leaves out an excluded one', async () => {
    const child = busyChild();
    children.push(child);
    // Wait for the child to have its buffer.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const counted = await sampleAfter(new GeneratorMonitor(), 2000);
    const excluded = await sampleAfter(new GeneratorMonitor({ exclude: [child.pid ?? 0] }), 2000);

    expect(counted.cores).toBeGreaterThan(0);
    // On a shared machine (load 30 on 2 cores) the spinning child may get a twentieth of a core.
    expect(counted.cpuPct).toBeGreaterThan(excluded.cpuPct + 2);
    expect(counted.rssMb).toBeGreaterThan(excluded.rssMb + 150);
    expect(await treePssMb()).toBeGreaterThan((await treePssMb(process.pid, [child.pid ?? 0])) + 150);
  });

  it('warns once while the tree stays above its busy share, never below it', async () => {
    const warnings: string[] = [];
    const quiet: string[] = [];
    // A share of the machine any running tree passes, and one no tree can (all cores, fully).
    const low = new GeneratorMonitor({ warn: (message) => warnings.push(message), busyShare: 0.001 });
    const high = new GeneratorMonitor({ warn: (message) => quiet.push(message), busyShare: 1.01 });
    children.push(busyChild());
    low.sampleNow();
    high.sampleNow();
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 700));
      low.sampleNow();
      high.sampleNow();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^The generator uses \d+% CPU of \d+%: it, not the service, may be the bottleneck$/,
    );
    expect(quiet).toEqual([]);
  });
});

describe('defaultPerBrowser', () => {
  it('is 1 to 8, from cores and memory', () => {
    expect(defaultPerBrowser(2, 24 * GIB)).toBe(8);
    expect(defaultPerBrowser(1, 24 * GIB)).toBe(4);
    expect(defaultPerBrowser(16, 64 * GIB)).toBe(8);
    expect(defaultPerBrowser(8, 2 * GIB)).toBe(1);
    expect(defaultPerBrowser(4, 0)).toBe(1);
  });
});
