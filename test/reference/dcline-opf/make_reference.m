% MATPOWER's OPF of cases with DC lines (toggle_dcline), AC and DC, for test/opf-dcline.test.ts.
% MATPOWER = a checkout of commit 95d5a6fa; CASES = shared/cases. Run from this folder:
%   MATPOWER=/work/tools/matpower CASES=/work/shared/cases octave-cli make_reference.m
1; % a script that defines its helpers first (Octave)
function s = sep(i, n)
  if i == n, s = ''; else, s = ','; end
end
function s = ifelse_str(c, a, b)
  if c, s = a; else, s = b; end
end
M = getenv('MATPOWER'); addpath([M '/lib']); addpath([M '/mips/lib']); addpath([M '/mp-opt-model/lib']); addpath([M '/mptest/lib']);
define_constants;
c = idx_dcline;

% case_ACTIVSg2000 with DC lines added: from the cheapest to the dearest bus of its DC-OPF (lossy, one way),
% between the next such pair (reversible; lossy, else a DC-OPF has many optimal flows on it), and one out of service
base = loadcase([getenv('CASES') '/case_ACTIVSg2000.m']);
mpopt = mpoption('verbose', 0, 'out.all', 0, 'opf.dc.solver', 'MIPS', 'exp.use_legacy_core', 1);
r = rundcopf(base, mpopt);
[~, order] = sort(r.bus(:, LAM_P));
lo = r.bus(order(1:2), BUS_I); hi = r.bus(order(end:-1:end-1), BUS_I);
dcl = [
  lo(1) hi(1) 1 0 0 0 0 1 1 0 200 -50 50 -50 50 2 0.02;
  hi(2) lo(2) 1 0 0 0 0 1 1 -100 100 -30 30 -30 30 0 0.01;
  lo(2) hi(1) 0 0 0 0 0 1 1 0 100 -10 10 -10 10 0 0;
];
% only the DC lines are kept here (case_ACTIVSg2000.dcline.m); the test appends them to shared/cases' case file
fid = fopen('case_ACTIVSg2000.dcline.m', 'w');
fprintf(fid, '%%%% DC lines added to case_ACTIVSg2000 by make_reference.m (test/reference/dcline-opf)\n');
fprintf(fid, '%%\tfbus\ttbus\tstatus\tPf\tPt\tQf\tQt\tVf\tVt\tPmin\tPmax\tQminF\tQmaxF\tQminT\tQmaxT\tloss0\tloss1\nmpc.dcline = [\n');
fprintf(fid, '\t%d\t%d\t%d\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g;\n', dcl.');
fprintf(fid, '];\n');
fclose(fid);

% case_RTS_GMLC (MATPOWER's other case with a DC line) is left out: gridops refuses its gencost (a piecewise-linear
% curve whose slope falls by 7e-5 $/MWh: not convex by its check).
cases = {'t_case9_dcline', 't_case9_dcline_nocost', 'case_ACTIVSg2000_dcline'};
for k = 1:numel(cases)
  name = cases{k};
  if strcmp(name, 't_case9_dcline_nocost')
    mpc = rmfield(loadcase('t_case9_dcline.m'), 'dclinecost');
  elseif strcmp(name, 'case_ACTIVSg2000_dcline')
    mpc = base; mpc.dcline = dcl;
  else
    mpc = loadcase([name '.m']);
  end
  % gridops does not model generator PQ capability curves (PC1 .. QC2MAX): t_case9_dcline's generator 2 has one
  mpc.gen(:, PC1:QC2MAX) = 0;
  mpc = toggle_dcline(mpc, 'on');
  for method = {'dc', 'ac'}
    m = method{1};
    if strcmp(m, 'dc') && strncmp(name, 't_case9', 7)
      % as MATPOWER's t_dcline does for its DC-OPF (feasible in DC): generator 1 PMIN 10, branch 5 RATE_A 100
      mpc.gen(1, PMIN) = 10; mpc.branch(5, RATE_A) = 100;
    elseif strncmp(name, 't_case9', 7)
      mpc = loadcase('t_case9_dcline.m'); mpc.gen(:, PC1:QC2MAX) = 0;
      if strcmp(name, 't_case9_dcline_nocost'), mpc = rmfield(mpc, 'dclinecost'); end
      mpc = toggle_dcline(mpc, 'on');
    end
    mpopt = mpoption('verbose', 0, 'out.all', 0, 'opf.ac.solver', 'MIPS', 'opf.dc.solver', 'MIPS', 'exp.use_legacy_core', 1);
    t = tic;
    if strcmp(m, 'dc'), r = rundcopf(mpc, mpopt); else, r = runopf(mpc, mpopt); end
    w = toc(t);
    solver = 'MIPS'; its = r.raw.output.iterations;
    if strcmp(m, 'dc') && ~r.success
      % MIPS fails on these DC LPs (piecewise-linear costs); MATPOWER's default for an LP is GLPK
      solver = 'GLPK'; mpopt = mpoption(mpopt, 'opf.dc.solver', 'GLPK');
      t = tic; r = rundcopf(mpc, mpopt); w = toc(t); its = -1;
    end
    printf('%s %s %s success %d f %.10f iterations %d wall %.3f\n', name, m, solver, r.success, r.f, its, w);
    fid = fopen([name '.' m 'opf.json'], 'w');
    fprintf(fid, '{\n  "case": "%s",\n  "method": "%sopf",\n', name, m);
    fprintf(fid, '  "solver": "MATPOWER 8.1.1-dev (git commit 95d5a6fa) on GNU Octave %s, legacy OPF core, toggle_dcline on, %s with MIPS (DC: GLPK where MIPS fails, opf_solver), defaults otherwise",\n', ...
      OCTAVE_VERSION, ifelse_str(strcmp(m, 'dc'), 'rundcopf', 'runopf'));
    fprintf(fid, '  "opf_solver": "%s",\n  "success": %d,\n  "f": %.12g,\n  "iterations": %d,\n  "wall_s": %.4f,\n  "base_mva": %g,\n', solver, r.success, r.f, its, w, r.baseMVA);
    fprintf(fid, '  "units": "vm p.u., va radians, lam_p $/MWh, pg/qg MW/MVAr, mu $/MWh or $/MVArh, dcline as idx_dcline (MW, MVAr, p.u.)",\n');
    nb = size(r.bus, 1);
    fprintf(fid, '  "bus": [\n');
    for i = 1:nb
      fprintf(fid, '    {"id": %d, "vm": %.12g, "va": %.12g, "lam_p": %.12g}%s\n', r.bus(i, BUS_I), r.bus(i, VM), r.bus(i, VA) * pi / 180, r.bus(i, LAM_P), sep(i, nb));
    end
    ng = size(r.gen, 1);
    fprintf(fid, '  ],\n  "gen": [\n');
    for i = 1:ng
      fprintf(fid, '    {"bus": %d, "status": %d, "pg": %.12g, "qg": %.12g, "mu_pmin": %.12g, "mu_pmax": %.12g}%s\n', ...
        r.gen(i, GEN_BUS), r.gen(i, GEN_STATUS), r.gen(i, PG), r.gen(i, QG), r.gen(i, MU_PMIN), r.gen(i, MU_PMAX), sep(i, ng));
    end
    nl = size(r.branch, 1);
    fprintf(fid, '  ],\n  "branch": [\n');
    for i = 1:nl
      fprintf(fid, '    {"pf": %.12g, "qf": %.12g, "pt": %.12g, "qt": %.12g}%s\n', r.branch(i, PF), r.branch(i, QF), r.branch(i, PT), r.branch(i, QT), sep(i, nl));
    end
    nd = size(r.dcline, 1);
    fprintf(fid, '  ],\n  "dcline": [\n');
    for i = 1:nd
      d = r.dcline(i, :);
      fprintf(fid, ['    {"from": %d, "to": %d, "status": %d, "pf": %.12g, "pt": %.12g, "qf": %.12g, "qt": %.12g, "vf": %.12g, "vt": %.12g, ' ...
        '"mu_pmin": %.12g, "mu_pmax": %.12g, "mu_qminf": %.12g, "mu_qmaxf": %.12g, "mu_qmint": %.12g, "mu_qmaxt": %.12g}%s\n'], ...
        d(c.F_BUS), d(c.T_BUS), d(c.BR_STATUS), d(c.PF), d(c.PT), d(c.QF), d(c.QT), d(c.VF), d(c.VT), ...
        d(c.MU_PMIN), d(c.MU_PMAX), d(c.MU_QMINF), d(c.MU_QMAXF), d(c.MU_QMINT), d(c.MU_QMAXT), sep(i, nd));
    end
    fprintf(fid, '  ]\n}\n');
    fclose(fid);
  end
end
