// Numbers as the console shows them: fixed decimals for finite numbers, anything else as given.
export const fmt = (x, d = 3) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : x ?? '');
