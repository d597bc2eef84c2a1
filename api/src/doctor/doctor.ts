/**
 * `npm run doctor`: checks a deployment's settings and the services they name, with the
 * API's own config loaders and clients, and says for each what is wrong and how to fix it.
 */
import { loadMediaConfig, type MediaConfig, MediaConfigError } from '@voice/media-server';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { certificateCheck, rtcChecks } from './networkChecks.ts';
import { type CheckResult, skip } from './report.ts';
import { databaseChecks, redisCheck } from './serviceChecks.ts';
import { announcedIpCheck, publicUrlCheck, secretChecks, variableChecks } from './settingsChecks.ts';
import { turnChecks } from './turnChecks.ts';

type Env = Record<string, string | undefined>;

/** Runs every check that applies, in the order an operator fixes things. */
export async function runDoctor(env: Env): Promise<CheckResult[]> {
  const problems: string[] = [];
  let config: Readonly<Config> | null = null;
  let media: Readonly<MediaConfig> | null = null;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  try {
    media = loadMediaConfig(env);
  } catch (error) {
    if (!(error instanceof MediaConfigError)) throw error;
    problems.push(...error.problems);
  }
  const results = variableChecks(problems);
  if (!config || !media) {
    results.push(skip('Other checks', 'they need valid variables: fix the ones above first'));
    return results;
  }
  results.push(...secretChecks(config, env));
  results.push(publicUrlCheck(config), announcedIpCheck(config, media));
  results.push(...(await databaseChecks(config)));
  results.push(await redisCheck(config));
  results.push(...(await rtcChecks(config, media)));
  results.push(...(await turnChecks(config)));
  results.push(await certificateCheck(config));
  return results;
}
