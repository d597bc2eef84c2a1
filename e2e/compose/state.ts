/** What globalSetup.ts hands the compose spec (a JSON file named in COMPOSE_TEST_STATE). */
import { readFileSync } from 'node:fs';
import type { ComposeFiles } from './ComposeProject.ts';

/** The compose project of the test; fixed, so a run removes the leftovers of an interrupted one. */
export const PROJECT_NAME = 'voice_compose_test';

/** Every service of the test's installation: the default ones and the `monitoring` profile's. */
export const SERVICES = ['app', 'media-server', 'postgres', 'redis', 'coturn', 'caddy', 'prometheus'];

/** The compose network's /24 in the test (COMPOSE_NET), away from the shipped default. */
export const COMPOSE_NET = '172.30.78';

/**
 * The media server's UDP range in the test (host network): outside the other tests' mediasoup
 * defaults (40000-49999), so a unit or e2e run beside it never meets its ports.
 */
export const RTC_PORTS = { min: 39000, max: 39029 } as const;

/** The compose test's coturn image (Debian's coturn 4.6, images/coturn.Dockerfile). */
export const COTURN_IMAGE = 'voice-test/coturn:4.6';

/** coturn's relay range in the test, away from the shipped 50000-50999 another coturn may use. */
export const TURN_RELAY_PORTS = { min: 38100, max: 38199 } as const;

export interface ComposeTestState {
  /** PUBLIC_URL: Caddy, https://localhost:<port>. */
  baseUrl: string;
  /** Caddy's plain HTTP port (HTTP_PORT), which redirects to HTTPS. */
  httpUrl: string;
  /** The app's own port on 127.0.0.1 (APP_BIND's default). */
  appUrl: string;
  /** Prometheus of the `monitoring` profile, on 127.0.0.1. */
  prometheusUrl: string;
  /** The protocol Caddy chose in the TLS handshake (h2 expected). */
  alpn: string;
  /** Base64 SHA-256 SPKI hashes of Caddy's chain and internal root, for Chromium. */
  spki: string[];
  runDir: string;
  files: ComposeFiles;
  turnPort: number;
}

export function loadState(): ComposeTestState {
  const file = process.env.COMPOSE_TEST_STATE;
  if (!file) throw new Error('COMPOSE_TEST_STATE is not set: run with e2e/compose.config.ts');
  return JSON.parse(readFileSync(file, 'utf8')) as ComposeTestState;
}
