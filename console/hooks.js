// Hooks shared by the views: the hash route, and a list reloaded live from the event stream.
import { useState, useEffect } from '/console/vendor/preact-htm.js';
import { listen } from '/console/api.js';

/** The route as path segments of the location hash: '#/network/12' → ['network', '12']. */
export function useRoute() {
  const [hash, setHash] = useState(location.hash || '#/networks');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/networks');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash.slice(2).split('/');
}

/** Reloads `load` now and whenever an event of `topics` arrives (at most every 500 ms). */
export function useLive(topics, load) {
  useEffect(() => {
    load();
    const ac = new AbortController();
    let timer = null;
    listen({ topics }, () => { if (!timer) timer = setTimeout(() => { timer = null; load(); }, 500); }, ac.signal);
    return () => { ac.abort(); clearTimeout(timer); };
  }, []);
}
