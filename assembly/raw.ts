// Raw element access for the per-iteration loops. Indexing a StaticArray held
// in a local makes the incremental GC's shadow stack re-store the reference on
// every access; reading through the data address avoids that. Only valid while
// nothing allocates, which holds inside every iteration loop of this core.

// @ts-ignore: decorator
@inline export function ptr<T>(a: T): usize { return changetype<usize>(a); }
// @ts-ignore: decorator
@inline export function geti(base: usize, i: i32): i32 { return load<i32>(base + (<usize>i << 2)); }
// @ts-ignore: decorator
@inline export function getf(base: usize, i: i32): f64 { return load<f64>(base + (<usize>i << 3)); }
// @ts-ignore: decorator
@inline export function setf(base: usize, i: i32, v: f64): void { store<f64>(base + (<usize>i << 3), v); }
