// The gridops operator console: Preact + htm (ES modules, no build step), the public API only (./api.js).
// This module routes by the location hash to a view (views/), each built from components/ (docs/console.md).
import { html, render, useState } from '/console/vendor/preact-htm.js';
import { session } from '/console/api.js';
import { useRoute } from '/console/hooks.js';
import { SignIn } from '/console/views/sign-in.js';
import { Networks } from '/console/views/networks.js';
import { NetworkView } from '/console/views/network.js';
import { Tasks } from '/console/views/tasks.js';
import { Alarms } from '/console/views/alarms.js';
import { Events } from '/console/views/events.js';
import { TimeSeries } from '/console/views/time-series.js';

const VIEWS = [
  ['networks', 'Networks', Networks], ['tasks', 'Tasks', Tasks], ['alarms', 'Alarms', Alarms], ['events', 'Events', Events],
  ['timeseries', 'Time series', TimeSeries],
];

function App() {
  const [signedIn, setSignedIn] = useState(Boolean(session.token));
  const route = useRoute();
  if (!signedIn || !session.token) return html`<${SignIn} onIn=${() => { setSignedIn(true); location.hash = '#/networks'; }} />`;
  const c = session.claims ?? {};
  const View = VIEWS.find(([k]) => k === route[0])?.[2] ?? Networks;
  const view = route[0] === 'network' ? html`<${NetworkView} key=${route[1]} id=${route[1]} />` : html`<${View} />`;
  return html`<header><h1>gridops</h1><nav aria-label="views">${VIEWS.map(([k, label]) => html`<a href=${`#/${k}`}
      aria-current=${route[0] === k || (k === 'networks' && route[0] === 'network') ? 'page' : undefined}>${label}</a>`)}</nav>
    <span class="who" id="who">${c.sub} · tenant ${c.tenant} · ${c.role}</span>
    <button class="secondary" onClick=${() => { session.token = null; setSignedIn(false); }}>Sign out</button></header>
    <main>${view}</main>`;
}

const root = document.getElementById('app');
root.textContent = ''; // the static "Loading" line
render(html`<${App} />`, root);
