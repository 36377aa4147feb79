// The state-estimation ABI seen from JavaScript: the buffers of assembly/se/abi.ts, generated into
// ./abi.generated.ts at build:wasm (scripts/gen-abi.js).
import * as core from './abi.generated.js';

export const SE_ABI_VERSION = core.SE_ABI_VERSION;

/** The input header; IN.OMEGA_BY_SOLVES = 1: Ω's diagonal by one solve per measurement (the comparison the
 *  sparse inverse subset is tested against). */
export const IN = core.SE_IN;
export const BUS = core.SE_BUS;
export const BR = core.SE_BR;
export const GEN = core.SE_GEN;
export const MEAS = core.SE_MEAS;
/** SE_KIND_*: the measurement kinds in the core's numbering. */
export const KIND = {
  p_from: core.SE_KIND.P_FROM,
  p_to: core.SE_KIND.P_TO,
  q_from: core.SE_KIND.Q_FROM,
  q_to: core.SE_KIND.Q_TO,
  p_gen: core.SE_KIND.P_GEN,
  q_gen: core.SE_KIND.Q_GEN,
  v_mag: core.SE_KIND.V_MAG,
  v_angle: core.SE_KIND.V_ANGLE,
  p_inj: core.SE_KIND.P_INJ,
  q_inj: core.SE_KIND.Q_INJ,
} as const;

export const OUT = core.SE_OUT; // OUT.SOLVE_MS is filled by the worker
export const OUT_BUS = core.SE_OUT_BUS;
export const OUT_MEAS = core.SE_OUT_MEAS;
export const STATUS = core.SE_STATUS;
