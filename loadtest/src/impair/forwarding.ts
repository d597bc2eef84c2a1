/**
 * The host's IPv4 forwarding, for participants that reach a remote deployment: their TCP (the
 * page, the API, signalling) is routed and masqueraded by the host, and a reply arriving on the
 * host's outside interface is forwarded only when forwarding is on for that interface too, i.e.
 * globally (UDP needs none of this: the relay sends it from the host itself). Turned on only for
 * remote targets and only when off, and turned back off when this process's last remote network
 * closes and no other process's impaired namespace remains.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { NAMESPACE_PATTERN } from './names.ts';

const IP_FORWARD = '/proc/sys/net/ipv4/ip_forward';
/** Where `ip netns add` keeps the namespaces it names. */
const NAMED_NAMESPACES = '/run/netns';

let enabledByUs = false;

export function enableForwarding(): void {
  if (readFileSync(IP_FORWARD, 'utf8').trim() !== '0') return;
  writeFileSync(IP_FORWARD, '1');
  enabledByUs = true;
}

/** Call after the last remote network of this process is gone. */
export function restoreForwarding(): void {
  if (!enabledByUs) return;
  let names: string[] = [];
  try {
    names = readdirSync(NAMED_NAMESPACES);
  } catch {
    // No named namespace at all.
  }
  if (names.some((name) => NAMESPACE_PATTERN.test(name))) return;
  writeFileSync(IP_FORWARD, '0');
  enabledByUs = false;
}
