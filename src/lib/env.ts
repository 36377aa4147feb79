// Numeric settings read from the environment, with the variable's name in the error a person sees at start-up.

/** `env[name]` as a number of at least `min`, or `dflt` when unset or empty; anything else stops the start. */
export function envNumber(env: NodeJS.ProcessEnv, name: string, dflt: number, min = 0): number {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${v}"`);
  return n;
}
