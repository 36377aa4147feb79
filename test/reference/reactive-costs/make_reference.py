"""Reference answers for AC-OPF with reactive-power costs (gencost with 2*ng rows).

Computed with PYPOWER (github.com/rwl/PYPOWER, the Python port of MATPOWER: runopf with PIPS = MIPS,
the same formulation, start point and options), because this machine has no MATLAB or Octave. Two
PYPOWER defects on this path had to be mended in the local copy first, both to MATPOWER's own code:
  opf_hessfcn.py / opf_costfcn.py: `if any(qcost):` -> `if qcost.size > 0:` (MATPOWER: ~isempty(qcost));
  opf_costfcn.py: qcost = gencost[ng + 1:2 * ng] -> gencost[ng:2 * ng] (off by one);
  opf_hessfcn.py / opf_costfcn.py: skip `d2f_dQg2[ipolq] = ...` when ipolq is empty (fails on an empty set);
  makeAy.py: `if i > ng: sidx = qgbas + (i - ng) - 1` -> `if i >= ng: sidx = qgbas + (i - ng)` (0-based rows:
    the second reactive piecewise-linear cost was put on the first generator's Qg);
and numpy 2 renamed in1d to isin. Check of the mended copy: case30 (no reactive costs) equals
shared/reference/opf/case30.acopf.json (MATPOWER) to 1e-11 in objective, Vm and LMPs, in the same 15 iterations. Run: PYPOWER=/path/to/PYPOWER python3 make_reference.py
Writes <case>.acopf.json in the layout of shared/reference/opf (MATPOWER's units, case order).
"""
import json, os, re, sys
sys.path.insert(0, os.environ.get('PYPOWER', '/tmp/pypower'))
from numpy import array
from pypower.api import runopf, ppoption, case9Q, case30Q
from pypower.idx_bus import BUS_I, VM, VA, LAM_P, LAM_Q, MU_VMAX, MU_VMIN
from pypower.idx_gen import GEN_BUS, GEN_STATUS, PG, QG, MU_PMAX, MU_PMIN, MU_QMAX, MU_QMIN
from pypower.idx_brch import F_BUS, T_BUS, BR_STATUS, RATE_A, PF, QF, PT, QT, MU_SF, MU_ST

HERE = os.path.dirname(os.path.abspath(__file__))
# case9 with piecewise-linear reactive costs (convex, V-shaped around 0 MVAr), made from case9Q.m here
PWL_Q_ROWS = [
    [1, 0, 0, 3, -300, 150, 0, 0, 300, 300],
    [1, 0, 0, 3, -300, 60, 0, 0, 300, 90],
    [1, 0, 0, 3, -300, 300, 0, 0, 300, 450],
]

def case9Qpwl():
    ppc = case9Q()
    width = max(len(r) for r in PWL_Q_ROWS)
    p = [list(r) + [0] * (width - len(r)) for r in ppc['gencost'][:3].tolist()]
    q = [r + [0] * (width - len(r)) for r in PWL_Q_ROWS]
    ppc['gencost'] = array(p + q, dtype=float)
    return ppc

def write_case9Qpwl():
    text = open(os.path.join(HERE, 'case9Q.m')).read()
    rows = '\n'.join('\t' + '\t'.join(str(v) for v in r) + ';' for r in PWL_Q_ROWS)
    text = re.sub(r'(\t2\t0\t0\t3\t0\.2\t0\t0;\n\t2\t0\t0\t3\t0\.05\t0\t0;\n\t2\t0\t0\t3\t0\.3\t0\t0;)', rows, text)
    text = text.replace('function mpc = case9Q', 'function mpc = case9Qpwl').replace(
        '%CASE9Q    Case 9 with costs for reactive generation.',
        '%CASE9QPWL    MATPOWER\'s case9Q with piecewise-linear reactive costs (made by make_reference.py).')
    open(os.path.join(HERE, 'case9Qpwl.m'), 'w').write(text)

def solve(name, ppc):
    opt = ppoption(VERBOSE=0, OUT_ALL=0, OPF_VIOLATION=5e-6, PDIPM_GRADTOL=1e-6, PDIPM_COMPTOL=1e-6,
                   PDIPM_COSTTOL=1e-6, PDIPM_MAX_IT=150)
    r = runopf(ppc, opt)
    out = {
        'case': name, 'method': 'acopf',
        'solver': 'PYPOWER (rwl/PYPOWER, MATPOWER port) runopf with PIPS, mended as make_reference.py says',
        'success': bool(r['success']), 'f': float(r['f']),
        'iterations': int(r['raw']['output']['iterations']) if 'output' in r['raw'] else None,
        'base_mva': float(r['baseMVA']),
        'bus': [{'id': int(b[BUS_I]), 'vm': b[VM], 'va': b[VA] * 3.141592653589793 / 180, 'lam_p': b[LAM_P],
                 'lam_q': b[LAM_Q], 'mu_vmax': b[MU_VMAX], 'mu_vmin': b[MU_VMIN]} for b in r['bus']],
        'gen': [{'bus': int(g[GEN_BUS]), 'status': int(g[GEN_STATUS]), 'pg': g[PG], 'qg': g[QG], 'mu_pmax': g[MU_PMAX],
                 'mu_pmin': g[MU_PMIN], 'mu_qmax': g[MU_QMAX], 'mu_qmin': g[MU_QMIN]} for g in r['gen']],
        'branch': [{'from': int(l[F_BUS]), 'to': int(l[T_BUS]), 'status': int(l[BR_STATUS]), 'rate_a': l[RATE_A],
                    'pf': l[PF], 'qf': l[QF], 'pt': l[PT], 'qt': l[QT], 'mu_sf': l[MU_SF], 'mu_st': l[MU_ST]}
                   for l in r['branch']],
    }
    out = json.loads(json.dumps(out, default=float))
    with open(os.path.join(HERE, f'{name}.acopf.json'), 'w') as fh:
        json.dump(out, fh, indent=1)
    print(name, out['success'], out['f'], out['iterations'])

if __name__ == '__main__':
    write_case9Qpwl()
    solve('case9Q', case9Q())
    solve('case30Q', case30Q())
    solve('case9Qpwl', case9Qpwl())
