// Raw element access for the hot loops. Indexing a StaticArray that lives in
// a local makes the incremental GC's shadow stack re-store the reference on
// every access, several stores per multiply-add; reading through the data
// address (changetype<usize>) avoids that. Only valid while nothing
// allocates, which holds inside factor and solve and inside every iteration
// loop of the power-flow core (jacobian, mismatch, newtonpf, fdpf), which uses
// these same helpers.

// @ts-ignore: decorator
@inline export function ptr<T>(a: T): usize { return changetype<usize>(a); }
// @ts-ignore: decorator
@inline export function geti(base: usize, i: i32): i32 { return load<i32>(base + (<usize>i << 2)); }
// @ts-ignore: decorator
@inline export function seti(base: usize, i: i32, v: i32): void { store<i32>(base + (<usize>i << 2), v); }
// @ts-ignore: decorator
@inline export function getf(base: usize, i: i32): f64 { return load<f64>(base + (<usize>i << 3)); }
// @ts-ignore: decorator
@inline export function setf(base: usize, i: i32, v: f64): void { store<f64>(base + (<usize>i << 3), v); }
/** y[idx[t]] -= v[t]·s for t in [t0, t1): the sparse axpy at the heart of LU. */
// @ts-ignore: decorator
@inline export function scatterAxpy(y: usize, idx: usize, v: usize, t0: i32, t1: i32, s: f64): void {
  for (let t = t0; t < t1; t++) {
    const a = y + (<usize>geti(idx, t) << 3);
    store<f64>(a, load<f64>(a) - getf(v, t) * s);
  }
}

// Running maxima of |v| without branches: for non-negative doubles the bit
// pattern orders like the value (and a NaN sorts above +Inf, so it survives
// to the end where isFinite sees it). An i64 select becomes a cmov, where a
// float compare-and-branch mispredicts on every new maximum.
// @ts-ignore: decorator
@inline export function absBits(v: f64): i64 { return reinterpret<i64>(v) & 0x7FFF_FFFF_FFFF_FFFF; }
// @ts-ignore: decorator
@inline export function maxBits(a: i64, b: i64): i64 { return select<i64>(a, b, a > b); }
// @ts-ignore: decorator
@inline export function bitsToF64(b: i64): f64 { return reinterpret<f64>(b); }
