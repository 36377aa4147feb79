% MATPOWER's answers for the PSS/E RAW files of shared/reference/psse/cases that psse2mpc reads
% (the shared solutions/ hold four; this makes the others). For each file: psse2mpc, then runpf with
% Newton-Raphson, tolerance 1e-8, 10 iterations, no Q limits, from the RAW file's voltages
% (as shared/reference/psse/README.md). Writes <name>.json beside this script with the shape of
% shared/reference/psse/solutions (case matrices and the pf answer); a file psse2mpc refuses or
% whose power flow fails is listed in index.json with MATPOWER's error.
% Run from this folder: MATPOWER=/work/tools/matpower CASES=/work/shared/reference/psse/cases octave --no-gui --quiet make_reference.m
M = getenv('MATPOWER'); addpath([M '/lib']); addpath([M '/mips/lib']); addpath([M '/mp-opt-model/lib']); addpath([M '/mptest/lib']);
define_constants;
C = getenv('CASES');
files = strsplit(getenv('FILES'), ' ');
index = struct('file', {}, 'ok', {}, 'error', {});
for k = 1:numel(files)
  f = files{k};
  if isempty(f), continue; end
  [~, name] = fileparts(f);
  try
    [mpc, warns] = psse2mpc([C '/' f], 0);
    mpopt = mpoption('verbose', 0, 'out.all', 0, 'pf.alg', 'NR', 'pf.tol', 1e-8, 'pf.nr.max_it', 10, 'pf.enforce_q_lims', 0);
    r = runpf(mpc, mpopt);
    out = struct();
    out.file = f;
    out.generated_by = 'test/reference/psse/make_reference.m';
    out.matpower = ['MATPOWER ' mpver() ' (psse2mpc, runpf) on GNU Octave ' OCTAVE_VERSION];
    out.psse2mpc_warnings = warns;
    c = struct('baseMVA', mpc.baseMVA, 'bus', mpc.bus, 'gen', mpc.gen, 'branch', mpc.branch);
    c.bus_name = mpc.bus_name;
    if isfield(mpc, 'dcline'), c.dcline = mpc.dcline; end
    out.case = c;
    pf = struct('success', r.success, 'iterations', r.iterations);
    pf.bus = [r.bus(:, [BUS_I BUS_TYPE VM VA])];
    pf.gen = [r.gen(:, [GEN_BUS PG QG GEN_STATUS])];
    pf.branch = [r.branch(:, [F_BUS T_BUS PF QF PT QT BR_STATUS])];
    if isfield(r, 'dcline') && ~isempty(r.dcline)
      pf.dcline = r.dcline(:, [1 2 3 4 5 6 7 8 9]);
    end
    out.pf = pf;
    fid = fopen([name '.json'], 'w'); fputs(fid, jsonencode(out)); fclose(fid);
    index(end+1) = struct('file', f, 'ok', r.success, 'error', '');
    printf('%s: %d buses, success %d, %d iterations\n', f, size(mpc.bus, 1), r.success, r.iterations);
  catch err
    index(end+1) = struct('file', f, 'ok', 0, 'error', err.message);
    printf('%s: ERROR %s\n', f, err.message);
  end
end
fid = fopen('index.json', 'w'); fputs(fid, jsonencode(index)); fclose(fid);
