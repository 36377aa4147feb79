// The tenant's alarms, live (topic alarm); those with the ack permission acknowledge the active ones.
import { html, useState } from '/console/vendor/preact-htm.js';
import { api, session, may } from '/console/api.js';
import { ErrorBox } from '/console/components/error-box.js';
import { Table } from '/console/components/table.js';
import { useLive } from '/console/hooks.js';

export function Alarms() {
  const [rows, setRows] = useState([]);
  const [error, setError] = useState(null);
  const load = () => api('GET', '/api/v1/alarms?page_size=100').then((r) => { setRows(r.data); setError(null); }, setError);
  useLive('alarm', load);
  const ack = (a) => api('PATCH', `/api/v1/alarms/${a.id}/ack`, {
    acknowledged_by: session.claims?.sub ?? 'console', note: 'acknowledged in the console',
  }).then(load, setError);
  return html`<section><h2>Alarms</h2><${ErrorBox} error=${error} />
    <${Table} id="alarms" columns=${[
      { key: 'severity', label: 'severity', value: (a) => a.severity }, { key: 'status', label: 'status', value: (a) => a.status },
      { key: 'message', label: 'message', value: (a) => a.message }, { key: 'raised', label: 'raised', value: (a) => a.raised_at ?? a.created_at },
      {
        key: 'action', label: '', value: () => '',
        render: (a) => (may('ack') && a.status === 'active'
          ? html`<button class="secondary" data-alarm=${a.id} onClick=${() => ack(a)}>Acknowledge</button>`
          : ''),
      },
    ]} rows=${rows} /></section>`;
}
