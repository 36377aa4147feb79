// The networks of the tenant: a page at a time, search by name and status, import a MATPOWER file by drop
// or choice (writers), export one.
import { html, useState, useEffect } from '/console/vendor/preact-htm.js';
import { api, download, may } from '/console/api.js';
import { ErrorBox } from '/console/components/error-box.js';

export function Networks() {
  const [page, setPage] = useState(1);
  const [name, setName] = useState('');
  const [status, setStatus] = useState('');
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const load = async () => {
    try {
      const q = new URLSearchParams({ page: String(page), page_size: '20' });
      if (name) q.set('name', name);
      if (status) q.set('status', status);
      setData(await api('GET', `/api/v1/networks?${q}`)); setError(null);
    } catch (e) { setError(e); }
  };
  useEffect(() => { load(); }, [page, name, status]);
  const importFile = async (file) => {
    setBusy(true);
    try {
      // the format by the file's extension: .raw PSS/E RAW, .rawx RAWX, otherwise a MATPOWER case
      const ext = (/\.(rawx|raw|m)$/i.exec(file.name)?.[1] ?? 'm').toLowerCase();
      const format = ext === 'rawx' ? 'rawx' : ext === 'raw' ? 'psse' : 'matpower';
      const base = file.name.replace(/\.(rawx|raw|m)$/i, '');
      const r = await api('POST', `/api/v1/networks/import?format=${format}&name=${encodeURIComponent(base)}`, await file.text(), { text: true });
      // what a PSS/E file held that the model cannot: shown, not hidden
      if (r.data.warnings?.length) {
        const lines = r.data.warnings.map((w) => `${w.code} (${w.count}): ${w.message}`).join('\n');
        alert(`Imported with ${r.data.warnings.length} warning(s):\n${lines}`);
      }
      setError(null);
      location.hash = `#/network/${r.data.id}`;
    } catch (e) { setError(e); } finally { setBusy(false); }
  };
  const drop = (e) => { e.preventDefault(); setOver(false); const f = e.dataTransfer.files[0]; if (f) importFile(f); };
  const meta = data?.meta;
  return html`<section>
    <h2>Networks</h2>
    <div class="row">
      <label>Search <input aria-label="search by name" value=${name} onInput=${(e) => { setPage(1); setName(e.target.value); }} /></label>
      <label>Status <select value=${status} onChange=${(e) => { setPage(1); setStatus(e.target.value); }}>
        <option value="">any</option><option>ready</option><option>draft</option><option>archived</option></select></label>
    </div>
    ${may('write') ? html`<div class=${`drop ${over ? 'over' : ''}`} onDragOver=${(e) => { e.preventDefault(); setOver(true); }}
        onDragLeave=${() => setOver(false)} onDrop=${drop}>
      Drop a MATPOWER case (.m) or PSS/E file (.raw, .rawx) here to import it, or <label>choose one <input id="import-file" type="file"
        accept=".m,.raw,.rawx,text/plain" onChange=${(e) => e.target.files[0] && importFile(e.target.files[0])} /></label>
      ${busy ? html`<progress aria-label="importing"></progress>` : null}
    </div>` : null}
    <${ErrorBox} error=${error} />
    ${data ? html`<table id="networks"><thead><tr><th>Name</th><th>Buses</th><th>Status</th><th>Created</th><th></th></tr></thead><tbody>
      ${data.data.map((n) => html`<tr><td><a href=${`#/network/${n.id}`}>${n.name}</a></td><td>${n.bus_count}</td><td>${n.status}</td>
        <td>${new Date(n.created_at).toLocaleString()}</td>
        <td><button class="secondary"
          onClick=${() => download(`/api/v1/networks/${n.id}/export?format=matpower`, `${n.name}.m`).catch(setError)}>Export</button></td></tr>`)}
    </tbody></table>
    <div class="row"><button class="secondary" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Previous</button>
      <span>page ${meta?.page ?? page} of ${meta?.total_pages ?? 1} (${meta?.total ?? 0} networks)</span>
      <button class="secondary" disabled=${!meta || page >= meta.total_pages} onClick=${() => setPage(page + 1)}>Next</button></div>`
      : html`<p class="muted">Loading…</p>`}
  </section>`;
}
