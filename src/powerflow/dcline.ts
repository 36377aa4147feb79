// MATPOWER DC lines in power flow, as runpf treats them (toggle_dcline.m, userfcn_dcline_ext2int /
// int2ext): each in-service DC line is a pair of generators, one at `from` taking p_from and one at
// `to` delivering p_to = p_from - (loss0 + loss1 * p_from), holding v_from / v_to; both terminal buses
// become pv (a slack stays slack). After the solve the pair is removed again and its reactive
// outputs are the line's q_from / q_to.
import type { DcLine, Generator, NetworkModel } from '../domain/networkModel.js';
import type { Static } from '@sinclair/typebox';
import type { DcLineResultOut } from '../schemas/powerflowResult.js';
import type { SolveOutcome } from './types.js';

export type DcLineResult = Static<typeof DcLineResultOut>;

export interface DcLineExpansion {
  model: NetworkModel;
  /** generators of the original model; the pairs follow them */
  ng: number;
  /** the in-service DC lines, in the order of their pairs */
  lines: DcLine[];
}

/** The model with its in-service DC lines as generator pairs; undefined when it has none. */
export function expandDcLines(net: NetworkModel): DcLineExpansion | undefined {
  const lines = (net.dc_lines ?? []).filter((d) => d.in_service);
  if (lines.length === 0) return undefined;
  const fromGens: Generator[] = [],
    toGens: Generator[] = [];
  const terminals = new Set<number>();
  for (const d of lines) {
    const pt = d.p_from - (d.loss0 + d.loss1 * d.p_from);
    fromGens.push({
      bus: d.from,
      mw: -d.p_from,
      mvar: d.q_from,
      vg: d.v_from,
      qmin: d.qmin_from,
      qmax: d.qmax_from,
      pmin: -d.pmax,
      pmax: -d.pmin,
      in_service: true,
      cost: null,
    });
    toGens.push({
      bus: d.to,
      mw: pt,
      mvar: d.q_to,
      vg: d.v_to,
      qmin: d.qmin_to,
      qmax: d.qmax_to,
      pmin: null,
      pmax: null,
      in_service: true,
      cost: null,
    });
    terminals.add(d.from);
    terminals.add(d.to);
  }
  const buses = net.buses.map((b) => (terminals.has(b.id) && b.type === 'pq' ? { ...b, type: 'pv' as const } : b));
  // MATPOWER appends all "from" generators, then all "to" generators (mpc.gen = [gen; fg; tg])
  const { dc_lines: _solvedAsPairs, ...rest } = net;
  return { model: { ...rest, buses, generators: [...net.generators, ...fromGens, ...toGens] }, ng: net.generators.length, lines };
}

/** The outcome of the expanded model as the original model's: the pairs become `dc_lines`. */
export function foldDcLines(net: NetworkModel, x: DcLineExpansion, out: SolveOutcome): SolveOutcome {
  const n = x.lines.length;
  const gens = out.generators;
  const pairs = gens.length === x.ng + 2 * n;
  const busGen = new Map<number, { p: number; q: number }>();
  const results: DcLineResult[] = [];
  let k = 0;
  for (const d of net.dc_lines ?? []) {
    if (!d.in_service || !pairs) {
      results.push({ from: d.from, to: d.to, in_service: d.in_service, p_from: 0, p_to: 0, q_from: 0, q_to: 0 });
      continue;
    }
    const f = gens[x.ng + k]!,
      t = gens[x.ng + n + k]!;
    k++;
    results.push({ from: d.from, to: d.to, in_service: true, p_from: -f.p_gen, p_to: t.p_gen, q_from: f.q_gen, q_to: t.q_gen });
    for (const g of [f, t]) {
      const s = busGen.get(g.bus) ?? { p: 0, q: 0 };
      s.p += g.p_gen;
      s.q += g.q_gen;
      busGen.set(g.bus, s);
    }
  }
  // bus totals are the sums of the network's own generators: the DC line's share is taken out
  const buses = out.buses.map((b) => {
    const s = busGen.get(b.id);
    return s ? { ...b, p_gen: b.p_gen - s.p, q_gen: b.q_gen - s.q } : b;
  });
  return { ...out, buses, generators: pairs ? gens.slice(0, x.ng) : gens, dc_lines: results };
}
