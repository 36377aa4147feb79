% MATPOWER's runpf of its DC line test case (lib/t/t_case9_dcline.m): the reference for gridops'
% reading of mpc.dcline and its power flow (toggle_dcline: a pair of generator injections per line).
% Newton, tolerance 1e-8, 10 iterations, no Q limits, legacy core. Writes t_case9_dcline.pf.json.
% Run from this folder: MATPOWER=/work/tools/matpower octave --no-gui --quiet make_dcline.m
M = getenv('MATPOWER'); addpath([M '/lib']); addpath([M '/lib/t']); addpath([M '/mips/lib']); addpath([M '/mp-opt-model/lib']); addpath([M '/mptest/lib']);
define_constants;
mpc = loadcase('t_case9_dcline');
mpc = toggle_dcline(mpc, 'on');
mpopt = mpoption('verbose', 0, 'out.all', 0, 'pf.alg', 'NR', 'pf.tol', 1e-8, 'pf.nr.max_it', 10, 'pf.enforce_q_lims', 0, 'exp.use_legacy_core', 1);
r = runpf(mpc, mpopt);
out = struct('file', 'lib/t/t_case9_dcline.m', 'generated_by', 'test/reference/psse/make_dcline.m', 'matpower', ['MATPOWER ' mpver()]);
pf = struct('success', r.success, 'iterations', r.iterations);
pf.bus = r.bus(:, [BUS_I BUS_TYPE VM VA]);
pf.gen = r.gen(:, [GEN_BUS PG QG GEN_STATUS]);
pf.branch = r.branch(:, [F_BUS T_BUS PF QF PT QT BR_STATUS]);
pf.dcline = r.dcline(:, 1:9);
out.pf = pf;
fid = fopen('t_case9_dcline.pf.json', 'w'); fputs(fid, jsonencode(out)); fclose(fid);
printf('success %d iterations %d\n', r.success, r.iterations);
