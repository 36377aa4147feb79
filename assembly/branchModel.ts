// What the cores share about a branch, so power flow, studies, OPF and the coming
// PTDF/LODF read the same network the same way (#22 item 3).

/** A branch flow limit is enforced when its rate is set and finite: MATPOWER treats
 *  rate_a = 0 (and values of 1e10 and beyond) as unlimited. */
// @ts-ignore: decorator
@inline export function isRated(rate: f64): bool { return rate != 0.0 && rate < 1e10; }
