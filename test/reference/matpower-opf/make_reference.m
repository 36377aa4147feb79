% MATPOWER's lib, mips/lib, mp-opt-model/lib and mptest/lib on the path (MATPOWER = a checkout of commit 95d5a6fa)
M = getenv('MATPOWER'); addpath([M '/lib']); addpath([M '/mips/lib']); addpath([M '/mp-opt-model/lib']); addpath([M '/mptest/lib']);
define_constants;
cases = {'case13659pegase'};
for k = 1:numel(cases)
  c = cases{k};
  mpc = loadcase([getenv('CASES') '/' c '.m']);
  for start = [0 2]
    mpopt = mpoption('verbose', 0, 'out.all', 0, 'opf.ac.solver', 'MIPS', 'opf.start', start, 'exp.use_legacy_core', 1);
    t = tic; r = runopf(mpc, mpopt); w = toc(t);
    printf('%s start %d success %d f %.10f iterations %d et %.3f wall %.3f\n', c, start, r.success, r.f, r.raw.output.iterations, r.et, w);
    if start == 2
      fid = fopen([c '.acopf_start2.json'], 'w');
      fprintf(fid, '{\n  "case": "%s",\n  "method": "acopf_start2",\n', c);
      fprintf(fid, '  "solver": "MATPOWER 8.1.1-dev (git commit 95d5a6fa) on GNU Octave %s, legacy OPF core (exp.use_legacy_core = 1), runopf with MIPS, opf.start 2, other options default as shared/reference/opf/README.md",\n', OCTAVE_VERSION);
      fprintf(fid, '  "success": %d,\n  "f": %.12g,\n  "iterations": %d,\n  "et_s": %.4f,\n  "wall_s": %.4f,\n  "base_mva": %g,\n', r.success, r.f, r.raw.output.iterations, r.et, w, r.baseMVA);
      fprintf(fid, '  "units": "vm p.u., va radians, pg MW",\n  "bus": [\n');
      nb = size(r.bus, 1);
      for i = 1:nb
        sep = ','; if i == nb, sep = ''; end
        fprintf(fid, '    {"id": %d, "vm": %.10g, "va": %.10g}%s\n', r.bus(i, BUS_I), r.bus(i, VM), r.bus(i, VA) * pi / 180, sep);
      end
      fprintf(fid, '  ],\n  "gen": [\n');
      ng = size(r.gen, 1);
      for i = 1:ng
        sep = ','; if i == ng, sep = ''; end
        fprintf(fid, '    {"bus": %d, "status": %d, "pg": %.10g}%s\n', r.gen(i, GEN_BUS), r.gen(i, GEN_STATUS), r.gen(i, PG), sep);
      end
      fprintf(fid, '  ]\n}\n');
      fclose(fid);
    end
  end
end
mpc = loadcase([getenv('CASES') '/case9241pegase.m']);
mpopt = mpoption('verbose', 0, 'out.all', 0, 'opf.ac.solver', 'MIPS', 'exp.use_legacy_core', 1);
t = tic; r = runopf(mpc, mpopt); w = toc(t);
printf('case9241pegase start 0 success %d f %.10f iterations %d et %.3f wall %.3f\n', r.success, r.f, r.raw.output.iterations, r.et, w);
