// Field names of PSS/E RAW records per revision, in file order, named as RAWX names them (so one
// mapping reads both), and the order of the data sections. Sources: PSS/E's POM for revisions 33-35
// and MATPOWER's psse_parse.m for 29-32. Only the fields gridops reads need be right; trailing
// fields are named as far as a record's meaning depends on their position.

const RATES3 = (p: string) => [`${p}1`, `${p}2`, `${p}3`];
const RATES12 = (p: string) => Array.from({ length: 12 }, (_, k) => `${p}${k + 1}`);

/** Record kinds, by their RAWX names. */
export type RecordKind =
  | 'bus'
  | 'load'
  | 'fixshunt'
  | 'generator'
  | 'acline'
  | 'sysswd'
  | 'transformer'
  | 'area'
  | 'twotermdc'
  | 'vscdc'
  | 'impcor'
  | 'ntermdc'
  | 'msline'
  | 'zone'
  | 'iatrans'
  | 'owner'
  | 'facts'
  | 'swshunt'
  | 'gne'
  | 'indmach'
  | 'sub';

/** The data sections after the case identification (and, from revision 34, the system-wide data). */
export function sectionOrder(rev: number): RecordKind[] {
  if (rev <= 30) {
    return [
      'bus',
      'load',
      'generator',
      'acline',
      'transformer',
      'area',
      'twotermdc',
      'vscdc',
      'swshunt',
      'impcor',
      'ntermdc',
      'msline',
      'zone',
      'iatrans',
      'owner',
      'facts',
    ];
  }
  const order: RecordKind[] = ['bus', 'load', 'fixshunt', 'generator', 'acline'];
  if (rev >= 34) order.push('sysswd');
  order.push('transformer', 'area', 'twotermdc', 'vscdc', 'impcor', 'ntermdc', 'msline', 'zone', 'iatrans', 'owner', 'facts', 'swshunt');
  if (rev >= 32) order.push('gne');
  if (rev >= 33) order.push('indmach');
  if (rev >= 35) order.push('sub');
  return order;
}

/** Field names of a one-line record kind. */
export function columnsOf(kind: 'bus' | 'load' | 'fixshunt' | 'generator' | 'acline' | 'sysswd' | 'swshunt', rev: number): string[] {
  switch (kind) {
    case 'bus':
      return rev <= 30
        ? ['ibus', 'name', 'baskv', 'ide', 'gl', 'bl', 'area', 'zone', 'vm', 'va', 'owner']
        : ['ibus', 'name', 'baskv', 'ide', 'area', 'zone', 'owner', 'vm', 'va', 'nvhi', 'nvlo', 'evhi', 'evlo'];
    case 'load':
      return ['ibus', 'loadid', 'stat', 'area', 'zone', 'pl', 'ql', 'ip', 'iq', 'yp', 'yq', 'owner', 'scale', 'intrpt'];
    case 'fixshunt':
      return ['ibus', 'shntid', 'stat', 'gl', 'bl'];
    case 'generator':
      return rev >= 34
        ? [
            'ibus',
            'machid',
            'pg',
            'qg',
            'qt',
            'qb',
            'vs',
            'ireg',
            'nreg',
            'mbase',
            'zr',
            'zx',
            'rt',
            'xt',
            'gtap',
            'stat',
            'rmpct',
            'pt',
            'pb',
          ]
        : ['ibus', 'machid', 'pg', 'qg', 'qt', 'qb', 'vs', 'ireg', 'mbase', 'zr', 'zx', 'rt', 'xt', 'gtap', 'stat', 'rmpct', 'pt', 'pb'];
    case 'acline':
      return rev >= 34
        ? ['ibus', 'jbus', 'ckt', 'rpu', 'xpu', 'bpu', 'name', ...RATES12('rate'), 'gi', 'bi', 'gj', 'bj', 'stat', 'met', 'len']
        : ['ibus', 'jbus', 'ckt', 'rpu', 'xpu', 'bpu', ...RATES3('rate'), 'gi', 'bi', 'gj', 'bj', 'stat', 'met', 'len'];
    case 'sysswd':
      return ['ibus', 'jbus', 'ckt', 'xpu', ...RATES12('rate'), 'stat', 'nstat', 'met', 'stype', 'name'];
    case 'swshunt':
      if (rev <= 29) return ['ibus', 'modsw', 'vswhi', 'vswlo', 'swrem', 'rmpct', 'binit'];
      if (rev <= 31) return ['ibus', 'modsw', 'adjm', 'vswhi', 'vswlo', 'swreg', 'rmidnt', 'binit'];
      if (rev <= 33) return ['ibus', 'modsw', 'adjm', 'stat', 'vswhi', 'vswlo', 'swreg', 'rmpct', 'rmidnt', 'binit'];
      return ['ibus', 'shntid', 'modsw', 'adjm', 'stat', 'vswhi', 'vswlo', 'swreg', 'nreg', 'rmpct', 'rmidnt', 'binit'];
  }
}

/** The lines of a transformer record (2- or 3-winding), each line's field names. */
export function transformerLines(threeWinding: boolean, rev: number): string[][] {
  const rates = (w: number) => (rev >= 34 ? RATES12(`wdg${w}rate`) : RATES3(`wdg${w}rate`));
  const first = ['ibus', 'jbus', 'kbus', 'ckt', 'cw', 'cz', 'cm', 'mag1', 'mag2', 'nmet', 'name', 'stat'];
  const winding = (w: number) => [`windv${w}`, `nomv${w}`, `ang${w}`, ...rates(w)];
  if (!threeWinding) return [first, ['r1_2', 'x1_2', 'sbase1_2'], winding(1), ['windv2', 'nomv2']];
  return [
    first,
    ['r1_2', 'x1_2', 'sbase1_2', 'r2_3', 'x2_3', 'sbase2_3', 'r3_1', 'x3_1', 'sbase3_1', 'vmstar', 'anstar'],
    winding(1),
    winding(2),
    winding(3),
  ];
}

/** The three lines of a two-terminal DC record (fields past the firing angles are not read). */
export function twoTerminalDcLines(): string[][] {
  return [
    ['name', 'mdc', 'rdc', 'setvl', 'vschd'],
    ['ipr', 'nbr', 'anmxr', 'anmnr'],
    ['ipi', 'nbi', 'anmxi', 'anmni'],
  ];
}

/** What each section holds, for warnings and messages. */
export const KIND_TITLE: Record<RecordKind, string> = {
  bus: 'bus',
  load: 'load',
  fixshunt: 'fixed shunt',
  generator: 'generator',
  acline: 'branch',
  sysswd: 'system switching device',
  transformer: 'transformer',
  area: 'area',
  twotermdc: 'two-terminal DC',
  vscdc: 'voltage source converter (VSC) DC',
  impcor: 'impedance correction',
  ntermdc: 'multi-terminal DC',
  msline: 'multi-section line',
  zone: 'zone',
  iatrans: 'inter-area transfer',
  owner: 'owner',
  facts: 'FACTS device',
  swshunt: 'switched shunt',
  gne: 'GNE device',
  indmach: 'induction machine',
  sub: 'substation',
};
