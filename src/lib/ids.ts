// Resource ids with their type prefix (SPEC section 1): net_, agent_, dev_, evt_, task_ ...
import { randomBytes } from 'node:crypto';

export function newId(prefix: 'net' | 'task' | 'agent' | 'dev' | 'alarm' | 'cmd' | 'act' | 'aud' | 'key' | 'usr' | 'rt' | 'study'): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}

/** Event ids carry the log's sequence number, zero-padded so that string order is id order. */
export const eventId = (seq: number) => `evt_${String(seq).padStart(16, '0')}`;
export function eventSeq(id: string): number | undefined {
  const m = /^evt_(\d{1,16})$/.exec(id);
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) ? n : undefined; // 16 digits may exceed 2^53: refused, not rounded
}
