// Power flow on a split network (CONTRACT "Islands"): which islands are solved and which
// are de-energized, as MATPOWER computes it. The rule is applied to the model before it is
// packed, the way MATPOWER's answer is made: the buses of every island left without a
// reference are typed NONE ('isolated', dropped by ext2int with their generators and
// branches), and under `new_reference` an island without a reference that has an
// in-service generator gets one (the bus of its generator with the largest p_max, the first
// in model order on a tie). The solver then sees islands that all hold a reference and
// solves them together, as MATPOWER's runpf does; the outcome is completed here with the
// de-energized buses (v 0, theta 0), the island list and what was lost.
import type { NetworkModel } from '../domain/networkModel.js';
import { busIslands } from '../domain/networkValidation.js';
import { deepFreeze, isDeeplyFrozen } from '../lib/immutable.js';
import type { IslandingRule, IslandSummary, SolveOutcome } from './types.js';

export interface IslandSplit {
  /** The model the solver sees: de-energized buses typed 'isolated', new references typed 'slack'. */
  model: NetworkModel;
  /** Islands, the largest first (ties: in order of their first bus in the model). */
  islands: IslandSummary[];
  /** Network bus position -> energized. */
  energized: Uint8Array;
  lostLoadMw: number;
  lostGenerationMw: number;
}

const splits = new WeakMap<NetworkModel, Map<IslandingRule, IslandSplit>>();

/** The split of a model under a rule; computed once per stored (frozen) model version and rule. */
export function islandSplit(net: NetworkModel, rule: Exclude<IslandingRule, 'refuse'>): IslandSplit {
  if (!isDeeplyFrozen(net)) return computeSplit(net, rule, false);
  let byRule = splits.get(net);
  if (!byRule) splits.set(net, (byRule = new Map()));
  let s = byRule.get(rule);
  if (!s) byRule.set(rule, (s = computeSplit(net, rule, true)));
  return s;
}

function computeSplit(net: NetworkModel, rule: Exclude<IslandingRule, 'refuse'>, freeze: boolean): IslandSplit {
  const buses = net.buses;
  const nb = buses.length;
  const pos = new Map<number, number>();
  for (let k = 0; k < nb; k++) pos.set(buses[k]!.id, k);
  // Islands over closed branches between buses that take part ('isolated' buses are islands of their own).
  const { label, count } = busIslands(net, pos);
  const members: number[][] = Array.from({ length: count }, () => []);
  for (let k = 0; k < nb; k++) members[label[k]!]!.push(k);
  const loadMw = new Float64Array(count), genMw = new Float64Array(count);
  for (const ld of net.loads) {
    const k = pos.get(ld.bus);
    if (k !== undefined && ld.in_service) loadMw[label[k]!] += ld.mw;
  }
  // A new reference: the bus of the island's in-service generator with the largest p_max (first on a tie).
  const bestGen = new Int32Array(count).fill(-1);
  const gens = net.generators;
  for (let g = 0; g < gens.length; g++) {
    const gen = gens[g]!;
    const k = pos.get(gen.bus);
    if (k === undefined || !gen.in_service || buses[k]!.type === 'isolated') continue;
    const isl = label[k]!;
    genMw[isl] += gen.mw;
    const b = bestGen[isl]!;
    if (b < 0 || (gen.pmax ?? Infinity) > (gens[b]!.pmax ?? Infinity)) bestGen[isl] = g;
  }
  const reference = new Int32Array(count).fill(-1); // island -> bus position of its reference
  for (let k = 0; k < nb; k++) if (buses[k]!.type === 'slack' && reference[label[k]!]! < 0) reference[label[k]!] = k;
  // Slack buses that still have an in-service generator: an island whose slack lost its last one
  // gets a new reference under new_reference too (an outage of the slack's generator in a study).
  const slackLive = new Uint8Array(count);
  for (const gen of gens) {
    const k = pos.get(gen.bus);
    if (k !== undefined && gen.in_service && buses[k]!.type === 'slack') slackLive[label[k]!] = 1;
  }
  const newReference = new Int32Array(count).fill(-1);
  if (rule === 'new_reference') {
    for (let s = 0; s < count; s++) {
      if ((reference[s]! >= 0 && slackLive[s]) || bestGen[s]! < 0) continue;
      newReference[s] = pos.get(gens[bestGen[s]!]!.bus)!;
      reference[s] = newReference[s]!;
    }
  }
  const energized = new Uint8Array(nb);
  for (let k = 0; k < nb; k++) energized[k] = reference[label[k]!]! >= 0 && buses[k]!.type !== 'isolated' ? 1 : 0;

  let lostLoadMw = 0, lostGenerationMw = 0;
  const islands: IslandSummary[] = members.map((m, s) => {
    const on = reference[s]! >= 0 && buses[m[0]!]!.type !== 'isolated';
    if (!on) { lostLoadMw += loadMw[s]!; lostGenerationMw += genMw[s]!; }
    return {
      buses: m.map((k) => buses[k]!.id),
      reference_bus: on ? buses[reference[s]!]!.id : null,
      energized: on,
      load_mw: loadMw[s]!,
      generation_mw: genMw[s]!,
    };
  });
  // The largest first; Array.prototype.sort is stable, and components are numbered by their first bus.
  islands.sort((a, b) => b.buses.length - a.buses.length);

  let changed = false;
  const solvedBuses = buses.map((b, k) => {
    if (!energized[k] && b.type !== 'isolated') { changed = true; return { ...b, type: 'isolated' as const }; }
    if (newReference[label[k]!] === k) { changed = true; return { ...b, type: 'slack' as const }; }
    return b;
  });
  // A stored (frozen) model's split is frozen too, so the solver pool caches its packing; a one-off one is not worth it.
  const model = changed ? (freeze ? deepFreeze({ ...net, buses: solvedBuses }) : { ...net, buses: solvedBuses }) : net;
  return { model, islands, energized, lostLoadMw, lostGenerationMw };
}

/** The outcome of the split model, as the answer for the whole network: de-energized buses at v 0, theta 0, the island list, what was lost. */
export function withIslands(outcome: SolveOutcome, split: IslandSplit): SolveOutcome {
  const out: SolveOutcome = { ...outcome, islands: split.islands, lost_load_mw: split.lostLoadMw, lost_generation_mw: split.lostGenerationMw };
  if (outcome.buses.length > 0) {
    out.buses = outcome.buses.map((b, k) => (split.energized[k] ? { ...b, energized: true } : { ...b, v: 0, theta: 0, p_gen: 0, q_gen: 0, energized: false }));
  }
  return out;
}
