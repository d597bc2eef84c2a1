/**
 * The doctor's checks of the settings themselves: every variable valid (the API's and the
 * media server's own loaders), secrets strong, PUBLIC_URL and MEDIA_ANNOUNCED_IP fit for
 * where the service is reached from.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import type { MediaConfig } from '@voice/media-server';
import type { Config } from '../config.ts';
import { isLocalhost, isPrivateIp, isPublicHost } from '../http/addresses.ts';
import { type CheckResult, fail, pass, skip } from './report.ts';

const RANDOM_SECRET = 'openssl rand -hex 32';

/** ✓ when both loaders accepted the environment, else one ✗ per problem they listed. */
export function variableChecks(problems: readonly string[]): CheckResult[] {
  if (problems.length === 0) return [pass('Variables', 'every variable is valid')];
  return problems.map((problem) => {
    const colon = problem.indexOf(': ');
    const [name, what] =
      colon > 0 ? [problem.slice(0, colon), problem.slice(colon + 2)] : ['Variable', problem];
    const fix = /secret/i.test(name)
      ? `set ${name} in .env to a random value (\`${RANDOM_SECRET}\`), the same wherever it is shared`
      : `correct ${name} in .env`;
    return fail(name, what, fix);
  });
}

/** JWT_SECRET, TURN_SECRET and MEDIA_SECRET: set, long and random (the loaders refuse weak ones). */
export function secretChecks(
  config: Readonly<Config>,
  env: Record<string, string | undefined>,
): CheckResult[] {
  const results: CheckResult[] = [];
  results.push(
    env.JWT_SECRET?.trim()
      ? pass('JWT_SECRET', `strong (${config.jwtSecret.length} characters)`)
      : env.JWT_SECRET_FILE?.trim()
        ? pass(
            'JWT_SECRET',
            `strong (${config.jwtSecret.length} characters, from ${env.JWT_SECRET_FILE.trim()})`,
          )
        : pass(
            'JWT_SECRET',
            `generated and kept in ${path.join(config.dataDir, 'jwt-secret')} (keep DATA_DIR on a volume)`,
          ),
  );
  results.push(
    config.turn
      ? pass('TURN_SECRET', `strong (${config.turn.secret.length} characters)`)
      : skip('TURN_SECRET', 'no TURN relay configured (TURN_SECRET and TURN_URLS unset)'),
  );
  return results;
}

/** PUBLIC_URL is https, except on localhost where browsers allow the microphone over http. */
export function publicUrlCheck(config: Readonly<Config>): CheckResult {
  const url = new URL(config.publicUrl);
  if (url.protocol === 'https:') return pass('PUBLIC_URL', `https (${url.host})`);
  if (isLocalhost(url.hostname)) return pass('PUBLIC_URL', `http on ${url.hostname}, fine for trying it out`);
  return fail(
    'PUBLIC_URL',
    `${config.publicUrl} is not https: browsers allow the microphone only on https pages (and localhost)`,
    `set PUBLIC_URL=https://${url.host} and serve it over HTTPS (the compose file's Caddy does)`,
  );
}

/** Browsers must reach the media server's ICE candidates: a public MEDIA_ANNOUNCED_IP for a public site. */
export function announcedIpCheck(config: Readonly<Config>, media: Readonly<MediaConfig>): CheckResult {
  const host = new URL(config.publicUrl).hostname;
  const announced = media.announcedIp;
  if (!isPublicHost(host)) {
    return announced
      ? pass('MEDIA_ANNOUNCED_IP', `${announced}`)
      : pass('MEDIA_ANNOUNCED_IP', `unset, fine while PUBLIC_URL (${host}) is not a public host`);
  }
  const fix = "set MEDIA_ANNOUNCED_IP to this server's public IPv4 address (e.g. `curl -4 ifconfig.me`)";
  if (!announced) {
    return fail(
      'MEDIA_ANNOUNCED_IP',
      `unset while PUBLIC_URL (${host}) is public: browsers get unreachable candidates`,
      fix,
    );
  }
  if (isIP(announced) !== 0 && isPrivateIp(announced)) {
    return fail(
      'MEDIA_ANNOUNCED_IP',
      `${announced} is a private address while PUBLIC_URL (${host}) is public: browsers outside this network cannot reach it`,
      fix,
    );
  }
  return pass('MEDIA_ANNOUNCED_IP', `${announced} (public)`);
}
