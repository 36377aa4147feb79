// A table whose columns sort (click a header) and whose rows filter (text box); at most 500 rows drawn.
import { html, useState, useMemo } from '/console/vendor/preact-htm.js';
import { fmt } from '/console/components/format.js';

const SHOWN_ROWS = 500;

export function Table({ columns, rows, id, rowClass, initialSort }) {
  const [sort, setSort] = useState(initialSort ?? null);
  const [filter, setFilter] = useState('');
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const out = f ? rows.filter((r) => columns.some((c) => String(c.value(r) ?? '').toLowerCase().includes(f))) : rows.slice();
    if (sort) {
      const col = columns.find((c) => c.key === sort.key);
      out.sort((a, b) => { const x = col.value(a), y = col.value(b); return (x < y ? -1 : x > y ? 1 : 0) * sort.dir; });
    }
    return out;
  }, [rows, sort, filter]);
  return html`<div>
    <div class="row"><label>Filter <input aria-label="filter rows" value=${filter} onInput=${(e) => setFilter(e.target.value)} /></label>
      <span class="muted">${shown.length} of ${rows.length}</span></div>
    <table id=${id}><thead><tr>${columns.map((c) => html`<th>
      <button aria-label=${`sort by ${c.label}`} onClick=${() => setSort({ key: c.key, dir: sort?.key === c.key ? -sort.dir : 1 })}>
        ${c.label}${sort?.key === c.key ? (sort.dir > 0 ? ' ▲' : ' ▼') : ''}</button></th>`)}</tr></thead>
    <tbody>${shown.slice(0, SHOWN_ROWS).map((r, i) => html`<tr class=${rowClass?.(r, i) ?? ''}>
      ${columns.map((c) => html`<td>${c.render ? c.render(r) : fmt(c.value(r))}</td>`)}</tr>`)}</tbody></table>
    ${shown.length > SHOWN_ROWS ? html`<p class="muted">the first ${SHOWN_ROWS} rows; narrow with the filter or download the CSV</p>` : null}
  </div>`;
}
