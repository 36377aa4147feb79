// State estimation's inputs and result (CONTRACT "State estimation"). The REST schema (src/schemas/stateEstimation.ts)
// checks a request's body; these are what the calculation takes and gives.
import type { SE_MEASUREMENT_KINDS, SE_STATUSES } from '../schemas/vocabulary.js';

export type MeasurementKind = (typeof SE_MEASUREMENT_KINDS)[number];
export type StateEstimationStatus = (typeof SE_STATUSES)[number];

/** One measurement as the references write it: a 0-based branch or generator index, or a bus id; MW, MVAr, p.u.,
 *  degrees. */
export interface Measurement {
  kind: MeasurementKind;
  element: number;
  value: number;
  sigma: number;
}

export interface StateEstimationOptions {
  /** Gauss–Newton iterations per estimate (doSE: 100) */
  maxIterations: number;
  /** largest normalized residual kept (lnr); null: no bad-data removal */
  badDataThreshold: number | null;
  timeoutMs: number;
}

export const DEFAULT_SE_OPTIONS: StateEstimationOptions = { maxIterations: 100, badDataThreshold: 3.0, timeoutMs: 30_000 };
/** doSE's stopping rule: the max-norm of Hᵀ R⁻¹ (z − h(x)) (p.u.). */
export const SE_TOLERANCE = 1e-5;
/** Most measurements one estimate takes (bounded work: CONTRACT "Bounded work"). */
export const MAX_MEASUREMENTS = 200_000;

export interface MeasurementResidual {
  measurement: number;
  kind: MeasurementKind;
  element: number;
  value: number;
  estimate: number;
  residual: number;
  /** r / √Ω_ii; null when the measurement is critical */
  normalized_residual: number | null;
  critical: boolean;
}

export interface BadDatum {
  measurement: number;
  kind: MeasurementKind;
  element: number;
  value: number;
  normalized_residual: number;
}

export interface StateEstimationResult {
  status: StateEstimationStatus;
  /** Gauss–Newton iterations of the final estimate, and over every bad-data pass */
  iterations: number;
  total_iterations: number;
  passes: number;
  /** Σ r²/σ² of the final estimate (doSE's error_sqrsum), null when there is none */
  J: number | null;
  dof: number;
  chi_square: { J: number | null; dof: number; quantile_99: number | null; passed: boolean | null };
  buses: { id: number; v: number; theta: number }[];
  branches: { index: number; from: number; to: number; p_from: number; q_from: number; p_to: number; q_to: number; loading: number }[];
  generators: { index: number; bus: number; p_mw: number; q_mvar: number }[];
  bad_data: BadDatum[];
  residuals: MeasurementResidual[];
  observability: { observable: boolean; unobservable_buses: number[] };
  measurements_used: number;
  message?: string;
  duration_ms: number;
}
