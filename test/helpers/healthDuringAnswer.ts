// A client on its own thread, as the heavy drill's: it POSTs a large request, sends three GET /health when the
// answer's first piece arrives, and reports the order in which the /health answers and the answer's end came. It
// reads the body while the server's thread works, so the socket never pushes back and only the server's turns of the
// event loop let /health in (an in-process client cannot show that).
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';

const CLIENT = `
const { request } = require('node:http');
const { parentPort, workerData: w } = require('node:worker_threads');
const events = [];
const health = () => new Promise((resolve, reject) => {
  request(w.url + '/api/v1/health', (res) => {
    res.resume();
    res.on('end', () => { events.push('health'); resolve(res.statusCode); });
  }).on('error', reject).end();
});
const req = request(w.url + w.path, { method: 'POST', headers: { ...w.headers, 'content-type': 'application/json' } }, (res) => {
  const chunks = [];
  const asked = [];
  res.on('data', (c) => {
    if (chunks.length === 0) for (let i = 0; i < 3; i++) asked.push(health());
    chunks.push(c);
  });
  res.on('end', async () => {
    events.push('answer-end');
    const healths = await Promise.all(asked);
    parentPort.postMessage({ events, healths, status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
  });
});
req.end(w.body);
`;

export interface HealthDuringAnswer {
  /** 'health' three times and 'answer-end', in the order they came */
  events: string[];
  healths: number[];
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** POSTs body to url + path with headers from a client thread; see the header. */
export async function healthDuringAnswer(url: string, path: string, headers: Record<string, string>, body: string): Promise<HealthDuringAnswer> {
  const worker = new Worker(CLIENT, { eval: true, workerData: { url, path, headers, body } });
  try {
    const [out] = (await once(worker, 'message')) as [HealthDuringAnswer];
    return out;
  } finally {
    await worker.terminate();
  }
}
