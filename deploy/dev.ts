/**
 * npm run dev — the API (restarting on change) on :8080 and Vite's dev server on
 * :5173 with hot reload; open http://localhost:5173. Ctrl-C stops both.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');

// Links in mail and the socket's origin check follow the page the developer opens.
const env = { ...process.env, PUBLIC_URL: process.env.PUBLIC_URL ?? 'http://localhost:5173' };
const children: ChildProcess[] = [
  spawn(process.execPath, ['--import', 'tsx', '--watch', 'api/src/main.ts'], {
    cwd: REPO_ROOT,
    env,
    stdio: 'inherit',
  }),
  spawn('npx', ['vite', '--config', 'web/vite.config.ts'], { cwd: REPO_ROOT, env, stdio: 'inherit' }),
];

const stop = () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
for (const child of children) child.once('exit', stop);
