/**
 * The app's two images of deploy/Dockerfile (targets `api` and `media-server`) on the test's Node
 * image, as the compose and swarm tests run them: built once, their layers cached by the engine,
 * so a later `docker-compose up --build` or `docker build` of the same sources takes seconds.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { DOCKER } from './ComposeProject.ts';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** The classic builder (no registry needed for a Dockerfile frontend), as docker-compose 1.29 builds. */
const BUILD_ENV = { PATH: process.env.PATH, HOME: process.env.HOME, DOCKER_BUILDKIT: '0' };

export const APP_IMAGES = [
  { target: 'api', tag: 'voice-test/app:current' },
  { target: 'media-server', tag: 'voice-test/media-server:current' },
] as const;

/** Builds both images, saying how long each took. */
export async function buildAppImages(log: (message: string) => void): Promise<void> {
  for (const { target, tag } of APP_IMAGES) {
    const since = Date.now();
    const args = ['build', '--network', 'host', '--quiet', '--file', 'deploy/Dockerfile', '--target', target];
    args.push(
      '--build-arg',
      'NODE_IMAGE=voice-test/node:20',
      '--label',
      'voice-test.image=app',
      '--tag',
      tag,
      '.',
    );
    await run(DOCKER, args, {
      env: BUILD_ENV,
      cwd: REPO_ROOT,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 900_000,
    }).catch((error: { stderr?: string; message: string }) => {
      throw new Error(`docker build of ${tag} failed: ${error.stderr || error.message}`);
    });
    log(`built ${tag} in ${Math.round((Date.now() - since) / 1000)} s`);
  }
}
