// The ABI: layout of the f64 input and output buffers exchanged with JavaScript
// (mirrored in src/powerflow/abi.ts; test/abi.test.ts fails on any difference).
//
// Input  (f64[]):  header[IN_HEADER]
//                  bus:    type, vm0, va0, pd, qd, gs, bs, island   (nb each)
//                  branch: f, t, r, x, b, ratio, shift               (nl each)
//                  gen:    bus, pg, qg, qmin, qmax                   (ng each)
// Output (f64[]):  header[OUT_HEADER]
//                  bus:    vm, va, pinj, qinj                        (nb each, MW/MVAr)
//                  branch: pf, qf, pt, qt                            (nl each, MW/MVAr)
//                  gen:    pg, qg                                    (ng each, MW/MVAr)
// Bus indices are internal (0..nb-1), types 1 pq, 2 pv, 3 ref; powers in MW /
// MVAr (divided by baseMVA inside, like MATPOWER's makeSbus / makeYbus);
// angles in radians; qmin/qmax may be +-Infinity.

export const ABI_VERSION: i32 = 1;

export const IN_VERSION: i32 = 0;
export const IN_METHOD: i32 = 1;      // 0 newton, 1 fast decoupled XB, 2 dc
export const IN_TOL: i32 = 2;
export const IN_MAXIT: i32 = 3;
export const IN_NB: i32 = 4;
export const IN_NL: i32 = 5;
export const IN_NG: i32 = 6;
export const IN_BASEMVA: i32 = 7;
export const IN_HEADER: i32 = 16;

export const BUS_FIELDS: i32 = 8;
export const BR_FIELDS: i32 = 7;
export const GEN_FIELDS: i32 = 5;

// Columns of the input sections: column c of a section of n rows starts at
// sectionOff + c * n (busOff + BUS_GS * nb is Gs), as MATPOWER's idx_bus / idx_brch / idx_gen.
export const BUS_TYPE: i32 = 0;
export const BUS_VM0: i32 = 1;
export const BUS_VA0: i32 = 2;
export const BUS_PD: i32 = 3;
export const BUS_QD: i32 = 4;
export const BUS_GS: i32 = 5;
export const BUS_BS: i32 = 6;
export const BUS_ISLAND: i32 = 7;

export const BR_F: i32 = 0;
export const BR_T: i32 = 1;
export const BR_R: i32 = 2;
export const BR_X: i32 = 3;
export const BR_B: i32 = 4;
export const BR_RATIO: i32 = 5;
export const BR_SHIFT: i32 = 6;

export const GEN_BUS: i32 = 0;
export const GEN_PG: i32 = 1;
export const GEN_QG: i32 = 2;
export const GEN_QMIN: i32 = 3;
export const GEN_QMAX: i32 = 4;

export const OUT_STATUS: i32 = 0;     // see STATUS_*
export const OUT_ITER: i32 = 1;
export const OUT_MISMATCH: i32 = 2;
export const OUT_ANALYSES: i32 = 3;
export const OUT_LOSS_P: i32 = 4;
export const OUT_LOSS_Q: i32 = 5;
export const OUT_HEADER: i32 = 16;    // slots 6.. are free for the JS side

// Columns of the output sections (oBus + OUT_BUS_PINJ * nb, ...).
export const OUT_BUS_VM: i32 = 0;
export const OUT_BUS_VA: i32 = 1;
export const OUT_BUS_PINJ: i32 = 2;
export const OUT_BUS_QINJ: i32 = 3;
export const OUT_BUS_FIELDS: i32 = 4;
export const OUT_BR_PF: i32 = 0;
export const OUT_BR_QF: i32 = 1;
export const OUT_BR_PT: i32 = 2;
export const OUT_BR_QT: i32 = 3;
export const OUT_BR_FIELDS: i32 = 4;
export const OUT_GEN_PG: i32 = 0;
export const OUT_GEN_QG: i32 = 1;
export const OUT_GEN_FIELDS: i32 = 2;

export const METHOD_NR: i32 = 0;
export const METHOD_FDXB: i32 = 1;
export const METHOD_DC: i32 = 2;

export const STATUS_CONVERGED: i32 = 0;
export const STATUS_MAXIT: i32 = 1;      // not converged within max iterations
export const STATUS_NAN: i32 = 2;        // mismatch became NaN / infinite
export const STATUS_SINGULAR: i32 = 3;   // singular Jacobian / B matrix
export const STATUS_CANCELLED: i32 = 4;  // the progress hook asked to stop
export const STATUS_BAD_INPUT: i32 = 5;
