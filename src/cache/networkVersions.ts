// Each network's status and current version, for power-flow submissions (issue 36): a memo in front of
// the batched read (src/domain/networks.ts createNetworkStateReader), so a synchronous power flow on a
// network read before costs no statement for it.
//
// Invalidation: every writer of a network's version or status calls networkWritten() after its commit. It
// forgets the entry here and tells the other API processes through the security notice channel (Redis
// pub/sub when distributed, as quota_changed does). A read that spans a forget stores nothing (the
// generation check), so a read begun before a commit cannot put the old version back after it. In another
// process the entry is gone when the notice arrives: a request reaching that process in the same
// millisecond as the write may still use the version it had read, as if it had come just before the write.
// Should a notice be lost (Redis unreachable at that moment), an entry is read again after maxAgeMs anyway.
import type { NetworkStateReader } from '../domain/networks.js';
import type { SecurityState } from '../security/context.js';
import { broadcast } from '../security/context.js';

type State = NonNullable<Awaited<ReturnType<NetworkStateReader['add']>>>;

export interface NetworkStateMemo extends NetworkStateReader {
  /** Drops the network's entry (this process only; networkWritten also tells the others). */
  forget(networkId: string): void;
  /** Entries held (tests, the bench's profile). */
  size(): number;
}

/** The memo over `reader`, bounded at `maxEntries` (cleared whole when full: entries are one statement to refill). */
export function memoNetworkStates(reader: NetworkStateReader, maxEntries = 10_000, maxAgeMs = 5_000): NetworkStateMemo {
  const held = new Map<string, State & { tenantId: string; at: number }>();
  let generation = 0;
  return {
    async add(key) {
      const hit = held.get(key.id);
      if (hit && performance.now() - hit.at < maxAgeMs) return hit.tenantId === key.tenantId ? { status: hit.status, version: hit.version } : undefined;
      const seen = generation;
      const state = await reader.add(key);
      // Unknown networks are not kept: a network created later gets its first read.
      if (state && seen === generation) {
        if (held.size >= maxEntries) held.clear();
        held.set(key.id, { status: state.status, version: state.version, tenantId: key.tenantId, at: performance.now() });
      }
      return state;
    },
    drain: () => reader.drain(),
    forget(networkId) {
      generation++;
      held.delete(networkId);
    },
    size: () => held.size,
  };
}

/** Hooks the memo to the notices of the other processes (bootstrap, once). */
export function listenNetworkNotices(st: SecurityState, memo: NetworkStateMemo): void {
  st.noticeListeners.push((n) => {
    if (n.kind === 'network_changed') memo.forget(n.network);
  });
}

/** Called by every writer of a network's status or version, after its commit. */
export function networkWritten(s: { security: SecurityState; networkStates: NetworkStateMemo }, networkId: string): Promise<void> {
  s.networkStates.forget(networkId);
  return broadcast(s.security, { kind: 'network_changed', network: networkId });
}
