/**
 * One docker compose project of the compose test: the repository's docker-compose.yml plus the
 * test's override file and .env, under a project name of its own, driven with Debian's
 * docker-compose 1.29 (the v2 plugin is not packaged in bookworm). Everything the test does to
 * the installation goes through here, as an operator would type it, with the `monitoring`
 * profile on.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where the repository's compose file lives, and where the test keeps its own files. */
export interface ComposeFiles {
  /** Repository root: the project directory (the compose file's relative paths start here). */
  repoRoot: string;
  /** The test's override file (host-network builds, coturn's test config). */
  overrideFile: string;
  /** The test's .env, passed with --env-file so an operator's .env is never read or written. */
  envFile: string;
}

/** Debian's client, which matches Debian's daemon (another `docker` may come first on the PATH). */
export const DOCKER = '/usr/bin/docker';

/**
 * The child environment: nothing of ours (compose lets the shell's variables win over the
 * --env-file, so a PUBLIC_URL or DATABASE_URL exported here would leak in), and the classic
 * builder, which needs no registry for a Dockerfile frontend image.
 */
const CHILD_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  COMPOSE_DOCKER_CLI_BUILD: '0',
  DOCKER_BUILDKIT: '0',
};

export class ComposeProject {
  constructor(
    readonly name: string,
    readonly files: ComposeFiles,
  ) {}

  /** `docker-compose ARGS` for this project; resolves with stdout, throws with stderr. */
  async compose(args: string[], timeoutMs = 900_000): Promise<Buffer> {
    const { stdout } = await run('docker-compose', [...this.#baseArgs(), ...args], {
      env: CHILD_ENV,
      maxBuffer: 256 * 1024 * 1024,
      timeout: timeoutMs,
      encoding: 'buffer',
    }).catch((error: { stdout?: Buffer; stderr?: Buffer; message: string }) => {
      // A build writes its steps to stdout: the end of it says which one failed and why.
      const out = error.stdout?.toString().split('\n').slice(-40).join('\n') ?? '';
      throw new Error(
        `docker-compose ${args.join(' ')} failed: ${out}\n${error.stderr?.toString() || error.message}`,
      );
    });
    return stdout;
  }

  /** The command line backup.sh and restore.sh get in COMPOSE (no spaces in the test's paths). */
  get commandLine(): string {
    return ['docker-compose', ...this.#baseArgs()].join(' ');
  }

  /** The child environment for scripts that call docker-compose themselves. */
  get env(): NodeJS.ProcessEnv {
    return { ...CHILD_ENV, COMPOSE: this.commandLine };
  }

  /** Runs SQL in the postgres container as the app's database user; returns the rows, tab-separated. */
  async sql(statement: string): Promise<string> {
    const out = await this.compose([
      'exec',
      '-T',
      'postgres',
      'psql',
      '--username=voice',
      '--dbname=voice',
      '--no-align',
      '--tuples-only',
      '--field-separator=\t',
      '--set=ON_ERROR_STOP=1',
      '--command',
      statement,
    ]);
    return out.toString().trim();
  }

  /**
   * Waits until every container of the project runs and each one with a health check reports
   * healthy; throws with their states after `timeoutMs`.
   */
  async waitHealthy(services: string[], timeoutMs = 240_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let states = '';
    for (;;) {
      states = await this.#states();
      const lines = states.split('\n').filter(Boolean);
      const ready = lines.filter((line) => / running (healthy|-)$/.test(line));
      const exited = lines.filter((line) => / (exited|dead) /.test(line));
      if (exited.length > 0) {
        throw new Error(`containers stopped:\n${states}\n${await this.logs(80)}`);
      }
      if (lines.length >= services.length && ready.length === lines.length) return;
      if (Date.now() > deadline) {
        throw new Error(`not healthy within ${timeoutMs} ms:\n${states}\n${await this.logs(80)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }

  /** The last `lines` of every service's log, for failure messages. */
  async logs(lines = 200): Promise<string> {
    return (
      await this.compose(['logs', '--no-color', `--tail=${lines}`]).catch((e: Error) =>
        Buffer.from(e.message),
      )
    ).toString();
  }

  /** Rewrites one variable of the test's .env (e.g. APP_IMAGE for an upgrade). */
  async setEnv(key: string, value: string): Promise<void> {
    const lines = (await readFile(this.files.envFile, 'utf8'))
      .split('\n')
      .filter((line) => !line.startsWith(`${key}=`));
    lines.splice(lines.length - 1, 0, `${key}=${value}`);
    await writeFile(this.files.envFile, lines.join('\n'));
  }

  /** `name status health` of each container of the project (health `-` when it has no check). */
  async #states(): Promise<string> {
    const ids = (await this.compose(['ps', '-q'])).toString().split('\n').filter(Boolean);
    if (ids.length === 0) return '';
    const { stdout } = await run(DOCKER, [
      'inspect',
      '--format',
      '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}-{{end}}',
      ...ids,
    ]);
    return stdout;
  }

  #baseArgs(): string[] {
    const { repoRoot, overrideFile, envFile } = this.files;
    return [
      '--project-name',
      this.name,
      '--project-directory',
      repoRoot,
      '--env-file',
      envFile,
      '--file',
      path.join(repoRoot, 'docker-compose.yml'),
      '--file',
      overrideFile,
      // Every command on the whole installation, the optional Prometheus included.
      '--profile',
      'monitoring',
    ];
  }
}
