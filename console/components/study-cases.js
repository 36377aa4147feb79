// An N-1 study's cases: those with new or worsened violations (against the base case) first, ranked by loading,
// then those with only the base case's own (pre-existing) violations, greyed, then the rest; with the load each
// lost, and its CSV.
import { html } from '/console/vendor/preact-htm.js';
import { download } from '/console/api.js';
import { fmt } from '/console/components/format.js';
import { Table } from '/console/components/table.js';

const isNew = (v) => v.kind !== 'pre_existing';
const describe = (v) => `${v.kind}: ${v.type} ${v.element}`;
const newFirst = (vs) => [...vs.filter(isNew), ...vs.filter((v) => !isNew(v))];

const COLUMNS = [
  { key: 'case_id', label: 'case', value: (r) => r.case_id }, { key: 'status', label: 'status', value: (r) => r.status },
  { key: 'max_loading_percent', label: 'max loading %', value: (r) => r.max_loading_percent ?? -1, render: (r) => fmt(r.max_loading_percent, 1) },
  { key: 'min_v', label: 'min v', value: (r) => r.min_v ?? 0, render: (r) => fmt(r.min_v, 4) },
  // new or worsened against the base case first, the ones the base case already had apart (CONTRACT)
  {
    key: 'violations', label: 'violations: new / pre-existing', value: (r) => r.new_violations ?? 0,
    render: (r) => html`<span title=${newFirst(r.violations ?? []).map(describe).join('\n')}><strong>${r.new_violations ?? 0}</strong>${
      ` / ${(r.violations?.length ?? 0) - (r.new_violations ?? 0)}`}</span>`,
  },
  {
    key: 'lost', label: 'load lost (MW)', value: (r) => r.islanded?.load_mw ?? 0,
    render: (r) => (r.islanded
      ? html`<span title=${`de-energized: buses ${r.islanded.buses.join(', ')}`}>${fmt(r.islanded.load_mw, 1)}</span>`
      : ''),
  },
  {
    key: 'max_new_loading_percent', label: 'worst new overload %',
    value: (r) => r.max_new_loading_percent ?? -1, render: (r) => fmt(r.max_new_loading_percent, 1),
  },
];

/** A row's group: 'new' (a new or worsened violation), 'pre-existing' (only the base case's own), 'clean'. */
export function caseGroup(r) {
  if ((r.new_violations ?? 0) > 0) return 'new';
  return (r.violations?.length ?? 0) > 0 ? 'pre-existing' : 'clean';
}
const GROUP_ORDER = { new: 0, 'pre-existing': 1, clean: 2 };

/** The rows in their groups (new first), each group by loading, the worst first (a stable sort of the API's order). */
export function orderCases(rows) {
  return rows.map((r, i) => [r, i]).sort(([a, i], [b, j]) => GROUP_ORDER[caseGroup(a)] - GROUP_ORDER[caseGroup(b)]
    || (b.max_loading_percent ?? -1) - (a.max_loading_percent ?? -1) || i - j).map(([r]) => r);
}

export function StudyCases({ study, onError, onShow }) {
  const columns = [...COLUMNS, {
    key: 'draw', label: 'on the drawing', value: () => '',
    render: (r) => (r.contingency?.branches?.length || r.islanded
      ? html`<button class="secondary" data-case=${r.case_id} aria-pressed=${study.shown === r.case_id ? 'true' : 'false'}
          onClick=${() => onShow(r)}>${study.shown === r.case_id ? 'Shown' : 'Show'}</button>`
      : ''),
  }];
  const rows = orderCases(study.cases);
  return html`<h3>N-1 study: cases with new or worsened violations first, ranked by loading</h3>
    <p class="muted">Cases whose only violations the base case already has are greyed below them. The case shown is drawn on the network:
      its outaged branch in pink, what it overloads or pushes outside voltage limits strong, the base case's own violations muted,
      the buses it leaves without supply in grey.</p>
    <div class="row"><button class="secondary"
      onClick=${() => download(`/api/v1/studies/${study.id}/cases.csv`, `study-${study.id}.csv`).catch(onError)}>Download CSV</button>
    <span class="muted" id="study-summary">${study.summary.progress?.total} cases, ${study.summary.counts?.cases_with_lost_load ?? 0} with lost load, ${
      study.summary.counts?.cases_with_new_violations ?? 0} with new or worsened violations</span></div>
    <${Table} id="study-cases" rowClass=${(r, i) => `case-${caseGroup(r)}${i === 0 ? ' worst' : ''}`} columns=${columns} rows=${rows} />`;
}
