/**
 * Where a redirected datagram was going. The host's iptables REDIRECT sends every UDP datagram
 * from a namespace to the relay; Node cannot read a UDP socket's original destination, but the
 * kernel's connection tracking holds it: the entry whose reply direction is "relay port → the
 * sender's address and port" has the original destination in its first tuple.
 */
import { readFile } from 'node:fs/promises';

const CONNTRACK_TABLE = '/proc/net/nf_conntrack';

export interface Endpoint {
  address: string;
  port: number;
}

interface Tuple {
  src: string;
  dst: string;
  sport: number;
  dport: number;
}

/** The original destination of the UDP flow `sender → relay`, or null when the table has none. */
export async function originalDestination(sender: Endpoint, relay: Endpoint): Promise<Endpoint | null> {
  const table = await readFile(CONNTRACK_TABLE, 'utf8');
  for (const line of table.split('\n')) {
    if (!line.includes(' udp ')) continue;
    const [original, reply] = tuples(line);
    if (!original || !reply) continue;
    if (
      reply.src === relay.address &&
      reply.sport === relay.port &&
      reply.dst === sender.address &&
      reply.dport === sender.port
    ) {
      return { address: original.dst, port: original.dport };
    }
  }
  return null;
}

/** The line's two tuples: each is a run of src=, dst=, sport=, dport= fields, in that order. */
function tuples(line: string): Tuple[] {
  const found: Tuple[] = [];
  const pattern = /src=(\S+) dst=(\S+) sport=(\d+) dport=(\d+)/g;
  for (const match of line.matchAll(pattern)) {
    found.push({
      src: match[1] as string,
      dst: match[2] as string,
      sport: Number(match[3]),
      dport: Number(match[4]),
    });
  }
  return found;
}
