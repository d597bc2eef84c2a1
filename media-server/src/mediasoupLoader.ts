import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { InvalidStateError, MediaConfigError } from './errors.ts';

/** The mediasoup module, typed; a type-only import, so it loads nothing. */
export type Mediasoup = typeof import('mediasoup');

const require = createRequire(import.meta.url);

// The first call's promise: concurrent callers share it, and one binary is fixed for the process.
let loaded: { workerBin: string; mediasoup: Promise<Mediasoup> } | undefined;

/**
 * The only way media-server code gets hold of mediasoup.
 *
 * mediasoup 3.8 reads MEDIASOUP_WORKER_BIN once, when `lib/Worker.js` is first evaluated, and
 * keeps it for the life of the process. A static `import 'mediasoup'` anywhere would be hoisted
 * above any code that sets the variable, so the library is imported dynamically here, after the
 * variable is set from the parsed config. For the same reason one process can only ever use one
 * worker binary; asking for another is refused rather than silently ignored.
 */
export async function loadMediasoup(workerBin: string, srtpLibDir: string | null = null): Promise<Mediasoup> {
  try {
    await access(workerBin, constants.X_OK);
  } catch {
    throw new MediaConfigError([
      `MEDIASOUP_WORKER_BIN: no executable at ${workerBin} (install it with deploy/install-system-deps.sh worker)`,
    ]);
  }

  if (loaded) {
    if (loaded.workerBin !== workerBin) {
      throw new InvalidStateError(
        `mediasoup is already bound to the worker ${loaded.workerBin}; cannot switch to ${workerBin}`,
      );
    }
    return loaded.mediasoup;
  }

  // Someone imported mediasoup before us: whatever binary it bound is not necessarily ours. This is
  // the one read of process.env outside config.ts; it asks what the library saw, not how to configure.
  const workerModule = require.resolve('mediasoup/lib/Worker.js');
  if (require.cache[workerModule] && process.env.MEDIASOUP_WORKER_BIN !== workerBin) {
    throw new InvalidStateError(
      'mediasoup was imported before the media server set MEDIASOUP_WORKER_BIN; import it only through loadMediasoup()',
    );
  }

  // Written, not read: the library and the worker processes it spawns both take it from here.
  process.env.MEDIASOUP_WORKER_BIN = workerBin;
  // The workers inherit this process's environment: theirs finds libsrtp2 there first.
  if (srtpLibDir) {
    const path = process.env.LD_LIBRARY_PATH?.split(':').filter(Boolean) ?? [];
    if (!path.includes(srtpLibDir)) process.env.LD_LIBRARY_PATH = [srtpLibDir, ...path].join(':');
  }
  loaded = { workerBin, mediasoup: import('mediasoup') };
  return loaded.mediasoup;
}
