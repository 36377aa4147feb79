// The chi-square test's threshold: the 99 % quantile of the chi-square distribution with dof degrees of freedom
// (MATLAB's chi2inv(0.99, dof)), by Newton's method on the regularized lower incomplete gamma function
// P(dof/2, x/2) (Numerical Recipes' series and continued fraction), from the Wilson–Hilferty approximation.

function logGamma(x: number): number {
  // Lanczos (g = 7, n = 9)
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** P(a, x), the regularized lower incomplete gamma function. */
function gammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  const lg = logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a,
      term = sum;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return sum * Math.exp(-x + a * Math.log(x) - lg);
  }
  let b = x + 1 - a,
    c = 1e300,
    d = 1 / b,
    h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return 1 - Math.exp(-x + a * Math.log(x) - lg) * h;
}

/** The standard normal 99 % quantile, for the starting point. */
const Z99 = 2.3263478740408408;

/** The 99 % quantile of chi-square with k degrees of freedom (k ≥ 1). */
export function chiSquare99(k: number): number {
  const p = 0.99;
  let x = Math.max(k * (1 - 2 / (9 * k) + Z99 * Math.sqrt(2 / (9 * k))) ** 3, 1e-3);
  const a = k / 2,
    lg = logGamma(a);
  for (let it = 0; it < 100; it++) {
    const f = gammaP(a, x / 2) - p;
    const pdf = Math.exp((a - 1) * Math.log(x / 2) - x / 2 - lg) / 2;
    const step = f / pdf;
    x = Math.max(x - step, x / 10);
    if (Math.abs(step) < 1e-12 * x) break;
  }
  return x;
}
