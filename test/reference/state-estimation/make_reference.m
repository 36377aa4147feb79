% A state-estimation reference with gross errors and injection measurements (issue 39 item 5), made as the shared
% ones are (shared/reference/state-estimation/README.md): MATPOWER Extras' se/doSE.m unmodified, run_se's steps,
% a largest-normalized-residual loop around it (threshold 3, ties within 1e-6 relative to the first in the list,
% critical measurements, Omega_ii/sigma^2 < 1e-6, never removed), every pass a fresh doSE call from the flat start.
%
% Injection measurements: doSE measures generators only (PG = the bus's injection + its Pd). A p_inj / q_inj of a
% bus is given to doSE as the PG / QG of a zero generator appended at that bus with VG 1 (its flat-start magnitude
% is 1 anyway) and the bus's load added to the value; the JSON names it p_inj / q_inj of the bus, as gridops reads it.
%
%   octave --eval "addpath(<matpower lib, lib/t, mips/lib, mp-opt-model/lib, mptest/lib, extras/se, this folder>);
%                  make_reference('case57', 'g_case57_gross_injections.json')"
function make_reference(casename, outfile)
  define_constants;
  mpc = loadcase(casename);
  nb0 = size(mpc.bus, 1); nl = size(mpc.branch, 1); ng0 = size(mpc.gen, 1);
  assert(all(mpc.bus(:, BUS_I) == (1:nb0)'), 'buses must be numbered 1..nb in order');
  assert(all(mpc.branch(:, BR_STATUS) == 1) && all(mpc.gen(:, GEN_STATUS) > 0), 'everything in service');
  mpopt = mpoption('verbose', 0, 'out.all', 0, 'pf.tol', 1e-10);
  r = runpf(mpc, mpopt);
  assert(r.success == 1);
  % the truth: from-end P/Q of every branch, to-end P/Q of every third, P/Q of every generator, Vm of every bus,
  % P/Q injection of every load bus without a generator
  gbus0 = mpc.gen(:, GEN_BUS);
  injb = find(~ismember((1:nb0)', gbus0) & (mpc.bus(:, PD) ~= 0 | mpc.bus(:, QD) ~= 0));
  base = r.baseMVA;
  V = r.bus(:, VM) .* exp(1j * pi / 180 * r.bus(:, VA));
  [Ybus, Yf, Yt] = makeYbus(base, r.bus, r.branch);
  Sbus = V .* conj(Ybus * V) * base;
  toRows = (3:3:nl)';
  % doSE's case: zero generators at the injection buses
  mpc2 = mpc;
  for k = 1:numel(injb)
    row = zeros(1, size(mpc.gen, 2)); row(GEN_BUS) = injb(k); row(VG) = 1; row(GEN_STATUS) = 1; row(MBASE) = base;
    row(QMAX) = 999; row(QMIN) = -999; row(PMAX) = 999;
    mpc2.gen = [mpc2.gen; row];
  end
  ng = size(mpc2.gen, 1);
  gb = mpc2.gen(:, GEN_BUS);
  Sg = Sbus(gb) + mpc.bus(gb, PD) + 1j * mpc.bus(gb, QD); % doSE's PG/QG row, MW
  % list in doSE's z order: PF, PT, PG (generators, then the injection buses), QF, QT, QG, Vm
  kinds = {}; elements = []; truth = []; sig = [];
  function add(kind, el, t, s)
    kinds{end + 1} = kind; elements(end + 1) = el; truth(end + 1) = t; sig(end + 1) = s;
  end
  for l = 1:nl, add('p_from', l - 1, real(r.branch(l, PF)), 1); end
  for l = toRows', add('p_to', l - 1, real(r.branch(l, PT)), 1); end
  for g = 1:ng0, add('p_gen', g - 1, real(Sg(g)), 1); end
  for k = 1:numel(injb), add('p_inj', injb(k), real(Sbus(injb(k))), 1); end
  for l = 1:nl, add('q_from', l - 1, r.branch(l, QF), 1); end
  for l = toRows', add('q_to', l - 1, r.branch(l, QT), 1); end
  for g = 1:ng0, add('q_gen', g - 1, imag(Sg(g)), 1); end
  for k = 1:numel(injb), add('q_inj', injb(k), imag(Sbus(injb(k))), 1); end
  for b = 1:nb0, add('v_mag', b, r.bus(b, VM), 0.004); end
  m = numel(truth);
  randn('seed', 7);
  e = randn(m, 1);
  value = truth(:) + sig(:) .* e;
  % gross errors: 25 sigma on a from-end P, 30 sigma on an injection Q, -20 sigma on a magnitude
  gross = [find(strcmp(kinds, 'p_from'), 1) + 10, find(strcmp(kinds, 'q_inj'), 1) + 2, find(strcmp(kinds, 'v_mag'), 1) + 20];
  value(gross(1)) += 25 * sig(gross(1)); value(gross(2)) += 30 * sig(gross(2)); value(gross(3)) -= 20 * sig(gross(3));
  % doSE's input (p.u.; the injection buses' load added to their PG / QG value)
  isk = @(k) strcmp(kinds, k);
  z_pu = value / base; z_pu(isk('v_mag')) = value(isk('v_mag'));
  pinjRows = find(isk('p_inj')); qinjRows = find(isk('q_inj'));
  z_pu(pinjRows) += mpc.bus(injb, PD) / base; z_pu(qinjRows) += mpc.bus(injb, QD) / base;
  sig_pu = sig(:) / base; sig_pu(isk('v_mag')) = sig(isk('v_mag'));
  active = true(m, 1);
  removed = struct('measurement', {}, 'normalized_residual', {});
  passes = {};
  [i2e, bus, gen, branch] = ext2int(mpc2.bus, mpc2.gen, mpc2.branch);
  [ref, pv, pq] = bustypes(bus, gen);
  [Ybus2, Yf2, Yt2] = makeYbus(base, bus, branch);
  V0 = getV0(bus, gen, 2);
  while true
    [res, Vest, it, J] = one_pass(active);
    passes{end + 1} = struct('pass', numel(passes) + 1, 'm', sum(active), 'iterations', it, 'J', J);
    if numel(passes) == 1, firstBlock = res.block; end
    if isempty(res.nr_best) || res.nr_best <= 3, break; end
    removed(end + 1) = struct('measurement', res.best - 1, 'normalized_residual', res.nr_best);
    active(res.best) = false;
  end
  first = passes{1};
  out = struct('scenario', strrep(outfile, '.json', ''), 'case', casename, 'base_mva', base, 'reference_bus', ref, ...
    'description', ['doSE with the lnr loop; full from-end flows, every third to-end flow, generators, load-bus ', ...
      'injections, every Vm; randn(''seed'', 7) noise; gross errors at measurements ', mat2str(gross - 1)], ...
    'tools', struct('matpower', 'MATPOWER 95d5a6fa', 'extras', 'MATPOWER Extras se/doSE.m unmodified', 'octave', OCTAVE_VERSION), ...
    'measurements', struct('kind', kinds, 'element', num2cell(elements), 'value', num2cell(value'), 'sigma', num2cell(sig)), ...
    'gross_errors', gross - 1, 'observability', struct('observable', true, 'unobservable_buses', []));
  out.dose = firstBlock; % doSE alone: the first pass, every measurement in
  out.bad_data_lnr = struct('method', 'lnr', 'threshold', 3, 'removed', removed, 'passes', {passes}, 'final', res.block);
  fid = fopen(outfile, 'w'); fputs(fid, jsonencode(out)); fclose(fid);
  printf('%s: %d measurements, removed %s, passes %d\n', outfile, m, mat2str([removed.measurement]), numel(passes));

  % (define_constants' names are not seen in nested functions: bus column 3 is PD, 4 QD; branch 1 F_BUS, 2 T_BUS)
  function [res, Vest, it, J] = one_pass(act)
    rows = find(act);
    [measure, idx, sigma] = dose_input(rows);
    % doSE takes one sigma per measurement type: each type here has one sigma (checked)
    [Vest, conv, it, z, z_est, J] = doSE(base, bus, gen, branch, Ybus2, Yf2, Yt2, V0, ref, pv, pq, measure, idx, sigma);
    assert(conv == 1);
    % H and the residuals at the returned state, as doSE builds them
    H = jac(Vest, rows);
    W = diag(1 ./ sig_pu(rows) .^ 2);
    G = H' * W * H;
    Om = 1 ./ diag(W) - diag(H * (G \ H'));
    h = hx(Vest, rows);
    rr = z_pu(rows) - h;
    ratio = Om ./ sig_pu(rows) .^ 2;
    crit = ratio < 1e-6;
    nr = rr ./ sqrt(max(Om, 0)); nr(crit) = NaN;
    a = abs(nr); a(crit) = -Inf;
    [best, kbest] = max(a);
    tie = find(a >= best * (1 - 1e-6), 1);
    res.best = rows(tie); res.nr_best = best;
    if ~isfinite(best), res.nr_best = []; end
    scale = base * ones(numel(rows), 1); scale(strcmp(kinds(rows), 'v_mag')) = 1;
    resid = struct('measurement', num2cell(rows' - 1), 'residual', num2cell((rr .* scale)'), ...
      'normalized_residual', num2cell(nr'), 'critical', num2cell(crit'));
    for k = find(crit)', resid(k).normalized_residual = []; end
    Sf = Vest(branch(:, 1)) .* conj(Yf2 * Vest) * base; St = Vest(branch(:, 2)) .* conj(Yt2 * Vest) * base;
    Sb = Vest .* conj(Ybus2 * Vest) * base;
    dof = numel(rows) - numel([pv; pq]) * 2;
    q99 = 2 * gammaincinv(0.99, dof / 2);
    res.block = struct('status', 'converged', 'iterations', it, 'J', J, 'dof', dof, 'chi2_99', q99, 'chi2_pass', J <= q99, ...
      'buses', struct('id', num2cell(1:nb0), 'vm', num2cell(abs(Vest(1:nb0))'), 'va_deg', num2cell(angle(Vest(1:nb0))' * 180 / pi)), ...
      'branches', struct('index', num2cell(0:nl - 1), 'p_from', num2cell(real(Sf)'), 'q_from', num2cell(imag(Sf)'), ...
        'p_to', num2cell(real(St)'), 'q_to', num2cell(imag(St)')), ...
      'gens', struct('index', num2cell(0:ng0 - 1), 'bus', num2cell(gb(1:ng0)'), 'p', num2cell(real(Sb(gb(1:ng0)))' + mpc.bus(gb(1:ng0), 3)'), ...
        'q', num2cell(imag(Sb(gb(1:ng0)))' + mpc.bus(gb(1:ng0), 4)')), ...
      'residuals', resid);
  end

  function g = rowgen(k)  % the doSE generator row of list entry k (p_gen / q_gen / p_inj / q_inj)
    if any(strcmp(kinds{k}, {'p_gen', 'q_gen'})), g = elements(k) + 1; else, g = ng0 + find(injb == elements(k)); end
  end

  function [measure, idx, sigma] = dose_input(rows)
    t = kinds(rows); el = elements(rows);
    pick = @(names) rows(ismember(t, names));
    PFr = pick({'p_from'}); PTr = pick({'p_to'}); PGr = pick({'p_gen', 'p_inj'}); QFr = pick({'q_from'}); QTr = pick({'q_to'});
    QGr = pick({'q_gen', 'q_inj'}); Vmr = pick({'v_mag'});
    idx.idx_zPF = elements(PFr)' + 1; idx.idx_zPT = elements(PTr)' + 1; idx.idx_zPG = arrayfun(@rowgen, PGr);
    idx.idx_zVa = []; idx.idx_zQF = elements(QFr)' + 1; idx.idx_zQT = elements(QTr)' + 1; idx.idx_zQG = arrayfun(@rowgen, QGr);
    idx.idx_zVm = elements(Vmr)';
    measure.PF = z_pu(PFr); measure.PT = z_pu(PTr); measure.PG = z_pu(PGr); measure.Va = [];
    measure.QF = z_pu(QFr); measure.QT = z_pu(QTr); measure.QG = z_pu(QGr); measure.Vm = z_pu(Vmr);
    sp = sig_pu;
    sigma.sigma_PF = unique(sp(PFr)); sigma.sigma_PT = unique(sp(PTr)); sigma.sigma_PG = unique(sp(PGr)); sigma.sigma_Va = 0;
    sigma.sigma_QF = unique(sp(QFr)); sigma.sigma_QT = unique(sp(QTr)); sigma.sigma_QG = unique(sp(QGr)); sigma.sigma_Vm = unique(sp(Vmr));
    for f = fieldnames(sigma)', assert(numel(sigma.(f{1})) <= 1); if isempty(sigma.(f{1})), sigma.(f{1}) = 0; end, end
    % doSE stacks z as PF, PT, PG, Va, QF, QT, QG, Vm: the list is in that order already (rows ascending)
    assert(isequal([PFr; PTr; PGr; QFr; QTr; QGr; Vmr], rows(:)));
  end

  function h = hx(Vx, rows)
    h = zeros(numel(rows), 1);
    Sf = Vx(branch(:, 1)) .* conj(Yf2 * Vx); St = Vx(branch(:, 2)) .* conj(Yt2 * Vx); Sb = Vx .* conj(Ybus2 * Vx);
    for q = 1:numel(rows)
      k = rows(q); el = elements(k);
      switch kinds{k}
        case 'p_from', h(q) = real(Sf(el + 1)); case 'q_from', h(q) = imag(Sf(el + 1));
        case 'p_to', h(q) = real(St(el + 1)); case 'q_to', h(q) = imag(St(el + 1));
        case 'v_mag', h(q) = abs(Vx(el));
        otherwise
          b = gb(rowgen(k));
          if kinds{k}(1) == 'p', h(q) = real(Sb(b)) + bus(b, 3) / base; else, h(q) = imag(Sb(b)) + bus(b, 4) / base; end
      end
    end
  end

  function H = jac(Vx, rows)
    [dSbus_dVa, dSbus_dVm] = dSbus_dV(Ybus2, Vx);
    [dSf_dVa, dSf_dVm, dSt_dVa, dSt_dVm] = dSbr_dV(branch, Yf2, Yt2, Vx);
    nonref = [pv; pq];
    H = zeros(numel(rows), 2 * numel(nonref));
    for q = 1:numel(rows)
      k = rows(q); el = elements(k);
      switch kinds{k}
        case 'p_from', ra = real(dSf_dVa(el + 1, :)); rm = real(dSf_dVm(el + 1, :));
        case 'q_from', ra = imag(dSf_dVa(el + 1, :)); rm = imag(dSf_dVm(el + 1, :));
        case 'p_to', ra = real(dSt_dVa(el + 1, :)); rm = real(dSt_dVm(el + 1, :));
        case 'q_to', ra = imag(dSt_dVa(el + 1, :)); rm = imag(dSt_dVm(el + 1, :));
        case 'v_mag', ra = zeros(1, size(bus, 1)); rm = ra; rm(el) = 1;
        otherwise
          b = gb(rowgen(k));
          if kinds{k}(1) == 'p', ra = real(dSbus_dVa(b, :)); rm = real(dSbus_dVm(b, :)); else, ra = imag(dSbus_dVa(b, :)); rm = imag(dSbus_dVm(b, :)); end
      end
      H(q, :) = [full(ra(nonref)) full(rm(nonref))];
    end
  end
end
