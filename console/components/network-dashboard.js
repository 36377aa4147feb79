// The numbers an operator looks for first on a network, from the public API: the last power flow (status,
// iterations, losses, when), the worst cases of the last N-1 study, the active alarms by severity, and the
// tenant's queue (tasks queued and running). Reloaded whenever a calculation of this view ends.
import { html, useState, useEffect } from '/console/vendor/preact-htm.js';
import { api } from '/console/api.js';
import { fmt } from '/console/components/format.js';

const SEVERITIES = ['critical', 'error', 'warn', 'info'];

async function load(id) {
  const [pf, study, alarms, queue] = await Promise.all([
    api('GET', `/api/v1/tasks?network_id=${id}&kind=powerflow&status=completed&page_size=1`),
    api('GET', `/api/v1/tasks?network_id=${id}&kind=study&status=completed&page_size=1`),
    api('GET', `/api/v1/alarms?network_id=${id}&status=active&page_size=100`),
    api('GET', '/api/v1/tasks?status=queued,running&page_size=1'),
  ]);
  const studyTask = study.data[0];
  const studyId = studyTask?.options?.study_id;
  const worst = studyId ? (await api('GET', `/api/v1/studies/${studyId}/cases?sort=-max_loading_percent&page_size=3`)).data : [];
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, alarms.data.filter((a) => a.severity === s).length]));
  return {
    powerflow: pf.data[0] ?? null, worst, studyAt: studyTask?.completed_at ?? null, bySeverity,
    activeAlarms: alarms.meta?.total ?? alarms.data.length, queued: queue.meta?.total ?? 0,
  };
}

export function NetworkDashboard({ id, refreshKey }) {
  const [d, setD] = useState(null);
  const [failed, setFailed] = useState(null);
  useEffect(() => { load(id).then((x) => { setD(x); setFailed(null); }, setFailed); }, [id, refreshKey]);
  if (failed) return html`<p class="muted" id="dashboard">The summary could not be loaded: ${failed.message}</p>`;
  if (!d) return html`<p class="muted" id="dashboard">Loading the summary…</p>`;
  const pf = d.powerflow, s = pf?.summary;
  return html`<div class="dashboard" id="dashboard" data-alarms=${d.activeAlarms} data-queued=${d.queued} data-worst=${d.worst[0]?.case_id ?? ''}>
    <div class="card"><h3>Last power flow</h3>${pf
      ? html`<p id="dash-powerflow">${s?.status ?? pf.status}, ${s?.iterations ?? '?'} iterations, ${s?.method ?? ''}</p>
          <p>losses ${fmt(s?.losses?.p_mw, 2)} MW · ${new Date(pf.completed_at).toLocaleString()}</p>`
      : html`<p class="muted">none yet</p>`}</div>
    <div class="card"><h3>Worst N-1 cases</h3>${d.worst.length
      ? html`<ol id="dash-worst">
          ${d.worst.map((c) => html`<li>${c.case_id}: ${fmt(c.max_loading_percent, 1)} %${
            c.violations?.length ? `, ${c.violations.length} violations` : ''}</li>`)}
        </ol><p class="muted">${new Date(d.studyAt).toLocaleString()}</p>`
      : html`<p class="muted">no study yet</p>`}</div>
    <div class="card"><h3>Active alarms</h3>
      <p id="dash-alarms">${SEVERITIES.map((k) => html`<span class=${`sev sev-${k}`}>${k} ${d.bySeverity[k]}</span> `)}</p></div>
    <div class="card"><h3>Queue</h3><p id="dash-queue">${d.queued} task${d.queued === 1 ? '' : 's'} queued or running (tenant)</p></div>
  </div>`;
}
