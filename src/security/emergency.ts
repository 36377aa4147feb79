// SPEC 8.1 "emergency shutdown commands bypass rate limits", narrowed (#11 finding 4):
// an emergency_shutdown passes only the layers whose purpose is pacing one agent's
// work (the per-agent limits in the domain and the L4 endpoint bucket of
// POST /agents/{id}/command), and only once the agent is found in the caller's
// tenant. L1 (client address), L2 (tenant) and L3 (user) still apply, so a flood
// of "emergencies" to agents that do not exist is refused like any other flood.
// Every door (REST gate, GraphQL guard, WebSocket) uses the same steps.
import type { Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import { checkRateLimits, type RateLimitDecision, type RateLimitRequest } from './ratelimit.js';

/** Did the four layers refuse only at the endpoint layer, for an emergency shutdown? Then a bypass may apply. */
export function endpointBypassMayApply(refused: RateLimitDecision, command: unknown): boolean {
  return !refused.allowed && refused.scope === 'endpoint' && command === 'emergency_shutdown';
}

/**
 * After the endpoint layer refused an emergency shutdown: takes the other layers (L1, L2, L3) for it,
 * then asks `agentFound` whether the agent belongs to the caller's tenant. Returns the decision to answer
 * with, or null when no bypass applies (answer the endpoint layer's refusal). The other layers are taken
 * first on purpose: a refused request costs no database lookup once its address or user is out of tokens.
 */
export async function emergencyBypass(
  s: Pick<Services, 'config' | 'security'>,
  r: Omit<RateLimitRequest, 'endpoint'> & { caller: Caller },
  agentFound: () => Promise<boolean>,
): Promise<RateLimitDecision | null> {
  const others = await checkRateLimits(s, { ip: r.ip, ipClass: r.ipClass, caller: r.caller });
  if (!others.allowed) return others;
  return (await agentFound()) ? others : null;
}
