// The state-estimation ABI: the f64 input and output buffers exchanged with JavaScript
// (mirrored in src/stateEstimation/abi.ts). A section of n rows stores column c at off + c * n.
//
// Input  (f64[]):  header[SE_IN_HEADER]
//                  bus:   pd, qd, gs, bs (MW, MVAr at 1 p.u.), vm0 (flat start: generator set-point or 1)  (nb each)
//                  branch: f, t (internal buses), r, x, b, ratio, shift (radians)                            (nl each)
//                  gen:   bus (internal)                                                                        (ng each)
//                  measurement: kind (SE_KIND_*), element (internal branch / generator / bus), value, sigma
//                          (p.u. on baseMVA, angles in radians)                                               (nm each)
// Output (f64[]):  header[SE_OUT_HEADER]
//                  bus:   vm, va (radians), unobservable (1 when its angle or magnitude is in H's null space)  (nb each)
//                  measurement: estimate h(x), residual z − h(x) (p.u.), normalized residual (NaN when critical or
//                          removed), Ω_ii/σ², pass in which bad-data removal took it out (0: kept), its
//                          normalized residual then                                                          (nm each)
// Everything is internal and in service (JavaScript numbers the network as MATPOWER's ext2int does).

export const SE_ABI_VERSION: i32 = 1;

export const SE_IN_VERSION: i32 = 0;
export const SE_IN_NB: i32 = 1;
export const SE_IN_NL: i32 = 2;
export const SE_IN_NG: i32 = 3;
export const SE_IN_NM: i32 = 4;
export const SE_IN_BASEMVA: i32 = 5;
export const SE_IN_REF: i32 = 6;        // internal index of the reference bus
export const SE_IN_MAXIT: i32 = 7;      // Gauss–Newton iterations per estimate (doSE: 100)
export const SE_IN_TOL: i32 = 8;        // max-norm of Hᵀ W r that stops it (doSE: 1e-5)
export const SE_IN_THRESHOLD: i32 = 9;  // largest normalized residual kept; 0: no bad-data removal
export const SE_IN_RESIDUALS: i32 = 10; // 1: compute the normalized residuals of the final estimate
export const SE_IN_OMEGA_BY_SOLVES: i32 = 11; // 1: Ω's diagonal by one solve per measurement, not G⁻¹'s sparse subset
export const SE_IN_HEADER: i32 = 16;

export const SE_BUS_FIELDS: i32 = 5;
export const SE_BUS_PD: i32 = 0;
export const SE_BUS_QD: i32 = 1;
export const SE_BUS_GS: i32 = 2;
export const SE_BUS_BS: i32 = 3;
export const SE_BUS_VM0: i32 = 4;

export const SE_BR_FIELDS: i32 = 7;
export const SE_BR_F: i32 = 0;
export const SE_BR_T: i32 = 1;
export const SE_BR_R: i32 = 2;
export const SE_BR_X: i32 = 3;
export const SE_BR_B: i32 = 4;
export const SE_BR_RATIO: i32 = 5;
export const SE_BR_SHIFT: i32 = 6;

export const SE_GEN_FIELDS: i32 = 1;
export const SE_GEN_BUS: i32 = 0;

export const SE_MEAS_FIELDS: i32 = 4;
export const SE_MEAS_KIND: i32 = 0;
export const SE_MEAS_ELEMENT: i32 = 1;
export const SE_MEAS_VALUE: i32 = 2;
export const SE_MEAS_SIGMA: i32 = 3;

/** Measurement kinds (CONTRACT "State estimation": p_from … q_inj). */
export const SE_KIND_P_FROM: i32 = 0;
export const SE_KIND_P_TO: i32 = 1;
export const SE_KIND_Q_FROM: i32 = 2;
export const SE_KIND_Q_TO: i32 = 3;
export const SE_KIND_P_GEN: i32 = 4;
export const SE_KIND_Q_GEN: i32 = 5;
export const SE_KIND_V_MAG: i32 = 6;
export const SE_KIND_V_ANGLE: i32 = 7;
export const SE_KIND_P_INJ: i32 = 8;
export const SE_KIND_Q_INJ: i32 = 9;

export const SE_OUT_STATUS: i32 = 0;
export const SE_OUT_ITER: i32 = 1;        // Gauss–Newton iterations of the final estimate
export const SE_OUT_J: i32 = 2;           // Σ r²/σ² at its last evaluation (doSE's error_sqrsum)
export const SE_OUT_NORM_F: i32 = 3;      // last max-norm of Hᵀ W r
export const SE_OUT_PASSES: i32 = 4;      // estimates made (1 + measurements removed)
export const SE_OUT_ACTIVE: i32 = 5;      // measurements in the final estimate
export const SE_OUT_TOTAL_ITER: i32 = 6;  // iterations over every pass
export const SE_OUT_RANK_DEFICIT: i32 = 7; // unobservable state variables found
export const SE_OUT_SOLVE_MS: i32 = 8;    // filled by the worker
export const SE_OUT_HEADER: i32 = 16;

export const SE_OUT_BUS_FIELDS: i32 = 3;
export const SE_OUT_BUS_VM: i32 = 0;
export const SE_OUT_BUS_VA: i32 = 1;
export const SE_OUT_BUS_UNOBSERVABLE: i32 = 2;

export const SE_OUT_MEAS_FIELDS: i32 = 6;
export const SE_OUT_MEAS_ESTIMATE: i32 = 0;
export const SE_OUT_MEAS_RESIDUAL: i32 = 1;
export const SE_OUT_MEAS_NORMALIZED: i32 = 2;
export const SE_OUT_MEAS_OMEGA_RATIO: i32 = 3;
export const SE_OUT_MEAS_REMOVED_PASS: i32 = 4;
export const SE_OUT_MEAS_REMOVED_NR: i32 = 5;

export const SE_STATUS_CONVERGED: i32 = 0;
export const SE_STATUS_DIVERGED: i32 = 1;
export const SE_STATUS_UNOBSERVABLE: i32 = 2;
export const SE_STATUS_CANCELLED: i32 = 4;
export const SE_STATUS_BAD_INPUT: i32 = 5;
