// The tenant's tasks, live (topics task and powerflow); operators cancel the queued and running ones.
import { html, useState } from '/console/vendor/preact-htm.js';
import { api, may } from '/console/api.js';
import { ErrorBox } from '/console/components/error-box.js';
import { Table } from '/console/components/table.js';
import { useLive } from '/console/hooks.js';

export function Tasks() {
  const [rows, setRows] = useState([]);
  const [error, setError] = useState(null);
  const load = () => api('GET', '/api/v1/tasks?page_size=50').then((r) => { setRows(r.data); setError(null); }, setError);
  useLive('task,powerflow', load);
  const cancel = (t) => api('DELETE', `/api/v1/tasks/${t.task_id ?? t.id}`).then(load, setError);
  return html`<section><h2>Tasks</h2><${ErrorBox} error=${error} />
    <${Table} id="tasks" columns=${[
      { key: 'id', label: 'task', value: (t) => t.task_id ?? t.id }, { key: 'kind', label: 'kind', value: (t) => t.kind },
      { key: 'status', label: 'status', value: (t) => t.status }, { key: 'network', label: 'network', value: (t) => t.network_id },
      { key: 'created', label: 'created', value: (t) => t.created_at, render: (t) => new Date(t.created_at).toLocaleTimeString() },
      {
        key: 'action', label: '', value: () => '',
        render: (t) => (may('compute') && ['queued', 'running'].includes(t.status)
          ? html`<button class="secondary" onClick=${() => cancel(t)}>Cancel</button>`
          : ''),
      },
    ]} rows=${rows} /></section>`;
}
