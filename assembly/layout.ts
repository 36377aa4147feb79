// The ABI: layout of the f64 input and output buffers exchanged with JavaScript
// (mirrored in src/powerflow/abi.ts; keep the two in step).
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

export const OUT_STATUS: i32 = 0;     // see STATUS_*
export const OUT_ITER: i32 = 1;
export const OUT_MISMATCH: i32 = 2;
export const OUT_ANALYSES: i32 = 3;
export const OUT_LOSS_P: i32 = 4;
export const OUT_LOSS_Q: i32 = 5;
export const OUT_HEADER: i32 = 16;    // slots 6.. are free for the JS side

export const METHOD_NR: i32 = 0;
export const METHOD_FDXB: i32 = 1;
export const METHOD_DC: i32 = 2;

export const STATUS_CONVERGED: i32 = 0;
export const STATUS_MAXIT: i32 = 1;      // not converged within max iterations
export const STATUS_NAN: i32 = 2;        // mismatch became NaN / infinite
export const STATUS_SINGULAR: i32 = 3;   // singular Jacobian / B matrix
export const STATUS_CANCELLED: i32 = 4;  // the progress hook asked to stop
export const STATUS_BAD_INPUT: i32 = 5;
