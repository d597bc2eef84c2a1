/**
 * How the impairment's system objects are named, so that anything a crashed run left behind can
 * be found and matched to its (dead) process: namespace `vlt-<pid>-<index>`, the host's end of
 * the veth `vlt<pid>h<index>` (interface names stop at 15 characters), host iptables rules
 * commented with the namespace's name, Chromium's wrapper script in the temporary directory.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface NetworkNames {
  pid: number;
  index: number;
  namespace: string;
  hostInterface: string;
  /** The namespace's end of the veth (its name only has to be unique inside the namespace). */
  insideInterface: string;
  wrapperScript: string;
}

export const NAMESPACE_PATTERN = /^vlt-(\d+)-(\d+)$/;
/** Host rules carry `-m comment --comment vlt-<pid>-<index>`. */
export const RULE_COMMENT_PATTERN = /--comment "?(vlt-(\d+)-(\d+))"?/;

export function networkNames(pid: number, index: number): NetworkNames {
  const namespace = `vlt-${pid}-${index}`;
  return {
    pid,
    index,
    namespace,
    hostInterface: `vlt${pid}h${index}`,
    insideInterface: 'vlt0',
    wrapperScript: path.join(tmpdir(), `${namespace}-chromium.sh`),
  };
}
