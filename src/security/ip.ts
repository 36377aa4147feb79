// Blocked client addresses (BLOCKED_IPS): single addresses or CIDR ranges, IPv4
// and IPv6, checked with node's BlockList. IPv4-mapped IPv6 (::ffff:a.b.c.d) is
// matched as the IPv4 address.
import { BlockList, isIP } from 'node:net';

export function normalizeIp(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1] : ip;
}

export function buildBlockList(entries: string[]): (ip: string) => boolean {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const raw of entries) {
    const [addr, bits] = raw.split('/');
    const type = isIP(addr);
    if (type === 0) throw new Error(`BLOCKED_IPS: "${raw}" is not an IP address or CIDR range`);
    const family = type === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(addr, family);
    else {
      const n = Number(bits);
      if (!Number.isInteger(n) || n < 0 || n > (type === 4 ? 32 : 128)) throw new Error(`BLOCKED_IPS: bad prefix length in "${raw}"`);
      list.addSubnet(addr, n, family);
    }
  }
  return (ip: string) => {
    const a = normalizeIp(ip);
    const t = isIP(a);
    return t !== 0 && list.check(a, t === 4 ? 'ipv4' : 'ipv6');
  };
}
