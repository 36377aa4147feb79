// Follows a power flow through a GraphQL subscription (graphql-ws), as the README's walkthrough
// does: subscribes to the tenant's powerflow and task events, starts an asynchronous power flow
// on the network with runPowerFlow, prints every event until the task has finished.
//   TOKEN=… node examples/follow-powerflow.mjs NETWORK_ID [BASE_URL]
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [networkId, base = 'http://127.0.0.1:8080'] = process.argv.slice(2);
const token = process.env.TOKEN;
if (!networkId || !token) {
  console.error('usage: TOKEN=<access token> node examples/follow-powerflow.mjs NETWORK_ID [BASE_URL]');
  process.exit(2);
}
const client = createClient({ url: base.replace(/^http/, 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { token } });
const events = client.iterate({ query: 'subscription { eventStream(topic: "powerflow,task") { kind payload timestamp } }' });
const first = events.next(); // subscribes now: the events of the solve cannot be missed

const run = await fetch(base + '/graphql', {
  method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ query: 'mutation($id: ID!) { runPowerFlow(id: $id, async: true) { taskId status } }', variables: { id: networkId } }),
}).then((r) => r.json());
if (run.errors) throw new Error(JSON.stringify(run.errors));
const taskId = run.data.runPowerFlow.taskId;
console.log('runPowerFlow', run.data.runPowerFlow);

for (let next = await first; !next.done; next = await events.next()) {
  if (next.value.errors) throw new Error(JSON.stringify(next.value.errors));
  const e = next.value.data.eventStream;
  if (e.payload.task_id !== taskId) continue;
  console.log(e.kind, JSON.stringify(e.payload));
  if (['task.completed', 'task.failed', 'task.cancelled'].includes(e.kind)) break;
}
await events.return?.();
await client.dispose();
