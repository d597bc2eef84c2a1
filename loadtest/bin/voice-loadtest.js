#!/usr/bin/env node
// `npx voice-loadtest …` from the workspace: runs the CLI's TypeScript through tsx.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.ts');
const result = spawnSync(process.execPath, ['--import', 'tsx', main, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 2);
