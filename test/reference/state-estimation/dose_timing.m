% doSE's time on a full measurement set (bench:se's set: every in-service branch's from-end P and Q, every
% generator's P and Q, every bus's Vm; sigma 1 MW / MVAr and 0.004 p.u.; seeded noise), MATPOWER Extras' se/doSE.m
% unmodified, through run_se's steps. Prints "case | buses | doSE s (median of runs) | iterations".
%   octave --no-gui --eval "addpath(...); dose_timing('case300', 3)"
function dose_timing(casename, runs)
  define_constants;
  mpc = loadcase(casename);
  mpopt = mpoption('verbose', 0, 'out.all', 0, 'pf.tol', 1e-10);
  r = runpf(mpc, mpopt);
  [i2e, bus, gen, branch] = ext2int(r.bus, r.gen, r.branch);
  [ref, pv, pq] = bustypes(bus, gen);
  [Ybus, Yf, Yt] = makeYbus(r.baseMVA, bus, branch);
  V0 = getV0(bus, gen, 2);
  nl = size(branch, 1); ng = size(gen, 1); nb = size(bus, 1);
  randn('seed', 42);
  idx.idx_zPF = (1:nl)'; idx.idx_zPT = []; idx.idx_zPG = (1:ng)'; idx.idx_zVa = [];
  idx.idx_zQF = (1:nl)'; idx.idx_zQT = []; idx.idx_zQG = (1:ng)'; idx.idx_zVm = (1:nb)';
  gbus = gen(:, GEN_BUS);
  Sg = zeros(nb, 1);
  for k = 1:ng, Sg(gbus(k)) = Sg(gbus(k)) + (gen(k, PG) + 1j * gen(k, QG)); end
  measure.PF = branch(:, PF) / r.baseMVA + 0.01 * randn(nl, 1); measure.PT = [];
  measure.PG = real(Sg(gbus)) / r.baseMVA + 0.01 * randn(ng, 1); measure.Va = [];
  measure.QF = branch(:, QF) / r.baseMVA + 0.01 * randn(nl, 1); measure.QT = [];
  measure.QG = imag(Sg(gbus)) / r.baseMVA + 0.01 * randn(ng, 1);
  measure.Vm = bus(:, VM) + 0.004 * randn(nb, 1);
  sigma.sigma_PF = 0.01; sigma.sigma_PT = 0; sigma.sigma_PG = 0.01; sigma.sigma_Va = 0;
  sigma.sigma_QF = 0.01; sigma.sigma_QT = 0; sigma.sigma_QG = 0.01; sigma.sigma_Vm = 0.004;
  t = zeros(runs, 1); it = 0; conv = 0;
  for k = 1:runs
    tic;
    [V, conv, it] = doSE(r.baseMVA, bus, gen, branch, Ybus, Yf, Yt, V0, ref, pv, pq, measure, idx, sigma);
    t(k) = toc;
  end
  printf('| %s | %d | %.3f | %d | converged %d |\n', casename, nb, median(t), it, conv);
end
