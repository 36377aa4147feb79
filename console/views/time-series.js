// A time series drawn with uPlot (zoom by dragging), raw or aggregated by interval.
import { html, useState, useRef } from '/console/vendor/preact-htm.js';
import { api } from '/console/api.js';
import { ErrorBox } from '/console/components/error-box.js';

/* global uPlot */
export function TimeSeries() {
  const now = new Date();
  const [form, setForm] = useState({
    metric: '', from: new Date(now - 86400e3).toISOString().slice(0, 16), to: now.toISOString().slice(0, 16), aggregation: 'avg', interval: '5m',
  });
  const [error, setError] = useState(null);
  const [info, setInfo] = useState(null);
  const box = useRef(null), plot = useRef(null);
  const show = async (e) => {
    e?.preventDefault();
    try {
      const q = new URLSearchParams({
        metric: form.metric, from: new Date(form.from).toISOString(), to: new Date(form.to).toISOString(), aggregation: form.aggregation,
      });
      if (form.aggregation !== 'none') q.set('interval', form.interval);
      const r = (await api('GET', `/api/v1/timeseries?${q}`)).data;
      const pts = r.points ?? [];
      const xs = pts.map((p) => Date.parse(p.timestamp ?? p[0]) / 1000), ys = pts.map((p) => p.value ?? p[1]);
      plot.current?.destroy();
      const options = { width: Math.min(1200, box.current.clientWidth || 900), height: 360, series: [{}, { label: form.metric, stroke: '#2563eb' }] };
      plot.current = new uPlot(options, [xs, ys], box.current);
      setInfo(`${pts.length} points`); setError(null);
    } catch (err) { setError(err); }
  };
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value });
  return html`<section><h2>Time series</h2>
    <form class="row" onSubmit=${show}>
      <label>Metric <input id="ts-metric" required value=${form.metric} onInput=${set('metric')} /></label>
      <label>From <input type="datetime-local" value=${form.from} onInput=${set('from')} /></label>
      <label>To <input type="datetime-local" value=${form.to} onInput=${set('to')} /></label>
      <label>Aggregation <select value=${form.aggregation} onChange=${set('aggregation')}>
        ${['none', 'avg', 'sum', 'max', 'min', 'count'].map((a) => html`<option>${a}</option>`)}</select></label>
      <label>Interval <input size="4" value=${form.interval} onInput=${set('interval')} /></label>
      <button type="submit">Show</button>
    </form>
    <${ErrorBox} error=${error} />${info ? html`<p class="muted" id="ts-info">${info}</p>` : null}
    <div id="chart" ref=${box}></div></section>`;
}
