// The host's progress hook: called after every iteration with the iteration
// number and the max-norm mismatch (p.u.). A non-zero return asks the solver to
// stop now (cancellation or timeout); the solve then ends with STATUS_CANCELLED.
// @ts-ignore: decorator
@external("env", "progress")
export declare function progress(iteration: i32, mismatch: f64): i32;
