// The event stream (SSE), all topics or one, newest first (the last 200).
import { html, useState, useEffect } from '/console/vendor/preact-htm.js';
import { listen } from '/console/api.js';

const TOPICS = ['', 'alarm', 'task', 'powerflow', 'topology', 'agent', 'device', 'constraint', 'system'];

export function Events() {
  const [topic, setTopic] = useState('');
  const [items, setItems] = useState([]);
  // Which stream is open: set by its system.connected event (an operator sees "live"; tests wait for it).
  const [live, setLive] = useState('');
  useEffect(() => {
    const ac = new AbortController();
    setItems([]); setLive('');
    listen(topic ? { topics: topic } : {}, (e) => {
      if (e.topic === 'system' && e.data?.kind === 'system.connected') setLive(topic || 'all');
      setItems((xs) => [e, ...xs].slice(0, 200));
    }, ac.signal);
    return () => ac.abort();
  }, [topic]);
  return html`<section><h2>Events</h2>
    <div class="row"><label>Topic <select id="event-topic" value=${topic} onChange=${(e) => setTopic(e.target.value)}>
      ${TOPICS.map((t) => html`<option value=${t}>${t || 'all'}</option>`)}</select></label>
    <span class="muted">${live ? 'live' : 'connecting…'}; newest first</span></div>
    <div class="feed" id="events" data-live=${live} aria-live="polite">${items.map((e) => html`<div data-topic=${e.topic}>
      ${e.topic} ${e.data?.kind ?? ''} ${JSON.stringify(e.data?.payload ?? e.data).slice(0, 200)}</div>`)}</div>
  </section>`;
}
