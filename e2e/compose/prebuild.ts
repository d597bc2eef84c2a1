/**
 * Readies the engine and every image the compose and swarm tests run (engine.sh, then the app's
 * two images), ahead of them: .ci/run starts it in the background while the unit and browser
 * tests run, so the container tests find their images built. Either test prepares whatever is
 * still missing itself, so a prebuild that failed costs time, not the run.
 *
 * Usage: tsx e2e/compose/prebuild.ts STATE_DIR (a dockerd it starts leaves its pid in
 * STATE_DIR/dockerd.pid; whoever started the prebuild stops it after the tests).
 */
import { mkdir } from 'node:fs/promises';
import { prepareEngine } from './engine.ts';
import { buildAppImages } from './images.ts';

const log = (message: string) =>
  console.log(`[prebuild ${new Date().toISOString().slice(11, 19)}] ${message}`);

const stateDir = process.argv[2];
if (!stateDir) {
  console.error('usage: tsx e2e/compose/prebuild.ts STATE_DIR');
  process.exit(2);
}
const started = Date.now();
await mkdir(stateDir, { recursive: true });
await prepareEngine(stateDir);
log(`engine and test images ready after ${Math.round((Date.now() - started) / 1000)} s`);
await buildAppImages(log);
log(`done after ${Math.round((Date.now() - started) / 1000)} s`);
