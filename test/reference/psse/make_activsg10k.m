% case_ACTIVSg10k written as PSS/E RAW revision 33 by MATPOWER's save2psse, read back by psse2mpc and
% solved by runpf (Newton, tolerance 1e-8, 10 iterations, no Q limits, from the case's voltages) with
% MATPOWER's legacy core: MP-Core (MATPOWER 8's default) shares a bus's reactive output among its
% generators differently at ~150 buses with several generators (bus 10684: -14.88 MVAr where the
% legacy core and the branch flows say 60.48); voltages and flows are the same in both cores.
% Writes case_ACTIVSg10k.raw.gz (the file gridops imports) and case_ACTIVSg10k_save2psse.json.gz beside this
% script, with the shape of make_reference.m's answers, and prints psse2mpc's time (bench/README.md).
% Run from this folder: MATPOWER=/work/tools/matpower CASES=/work/shared/cases octave --no-gui --quiet make_activsg10k.m
M = getenv('MATPOWER'); addpath([M '/lib']); addpath([M '/mips/lib']); addpath([M '/mp-opt-model/lib']); addpath([M '/mptest/lib']);
define_constants;
mpc0 = loadcase([getenv('CASES') '/case_ACTIVSg10k.m']);
save2psse('case_ACTIVSg10k.raw', mpc0);
t = tic; [mpc, warns] = psse2mpc('case_ACTIVSg10k.raw', 0); et = toc(t);
system('gzip -9 -f case_ACTIVSg10k.raw');
printf('psse2mpc case_ACTIVSg10k.raw: %.3f s\n', et);
mpopt = mpoption('verbose', 0, 'out.all', 0, 'pf.alg', 'NR', 'pf.tol', 1e-8, 'pf.nr.max_it', 10, 'pf.enforce_q_lims', 0, 'exp.use_legacy_core', 1);
r = runpf(mpc, mpopt);
out = struct();
out.file = 'case_ACTIVSg10k.raw';
out.generated_by = 'test/reference/psse/make_activsg10k.m';
out.matpower = ['MATPOWER ' mpver() ' (save2psse, psse2mpc, runpf with the legacy core) on GNU Octave ' OCTAVE_VERSION];
out.psse2mpc_seconds = et;
out.psse2mpc_warnings = warns;
out.case = struct('baseMVA', mpc.baseMVA, 'bus', mpc.bus, 'gen', mpc.gen, 'branch', mpc.branch);
out.case.bus_name = mpc.bus_name;
pf = struct('success', r.success, 'iterations', r.iterations);
pf.bus = r.bus(:, [BUS_I BUS_TYPE VM VA]);
pf.gen = r.gen(:, [GEN_BUS PG QG GEN_STATUS]);
pf.branch = r.branch(:, [F_BUS T_BUS PF QF PT QT BR_STATUS]);
out.pf = pf;
fid = fopen('case_ACTIVSg10k_save2psse.json', 'w'); fputs(fid, jsonencode(out)); fclose(fid);
system('gzip -9 -f case_ACTIVSg10k_save2psse.json');
printf('runpf: success %d, %d iterations\n', r.success, r.iterations);
