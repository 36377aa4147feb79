// The Redis event bus against this machine's Redis: messages published in one turn of
// the event loop leave as one PUBLISH per run of the same channel, and every subscriber
// still receives them one by one, in publish order.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { createRedisBus, type BusChannel, type EventBus } from '../src/events/bus.js';
import { REDIS_URL, uniqueName } from './helpers/app.js';

describe('Redis event bus', () => {
  const prefix = uniqueName('gbus');
  let publisher: EventBus;
  let subscriber: EventBus;
  let raw: Redis;
  const rawMessages: { channel: string; body: string }[] = [];

  before(async () => {
    publisher = await createRedisBus(REDIS_URL, prefix);
    subscriber = await createRedisBus(REDIS_URL, prefix);
    raw = new Redis(REDIS_URL);
    await raw.psubscribe(`${prefix}:bus:*`);
    raw.on('pmessage', (_p: string, channel: string, body: string) => rawMessages.push({ channel: channel.slice(prefix.length + 5), body }));
  });
  after(async () => {
    await publisher?.close();
    await subscriber?.close();
    raw?.disconnect();
  });

  it('delivers a turn\'s messages one by one and in order, in one PUBLISH per run of a channel', async () => {
    const seen: { channel: BusChannel; n: number }[] = [];
    for (const c of ['event', 'task'] as const) subscriber.subscribe(c, (m: { n: number }) => seen.push({ channel: c, n: m.n }));
    await subscriber.ready('event');
    await subscriber.ready('task');
    rawMessages.length = 0;

    const sent: { channel: BusChannel; n: number }[] = [
      { channel: 'event', n: 1 }, { channel: 'event', n: 2 }, { channel: 'event', n: 3 },
      { channel: 'task', n: 4 }, { channel: 'event', n: 5 },
    ];
    await Promise.all(sent.map((m) => publisher.publish(m.channel, { n: m.n })));
    for (let i = 0; i < 200 && seen.length < sent.length; i++) await new Promise((r) => setTimeout(r, 5));

    assert.deepEqual(seen, sent);
    assert.deepEqual(rawMessages.map((m) => m.channel), ['event', 'task', 'event'], 'three runs, three PUBLISHes');
    assert.deepEqual(JSON.parse(rawMessages[0]!.body), [{ n: 1 }, { n: 2 }, { n: 3 }]);
    assert.deepEqual(JSON.parse(rawMessages[1]!.body), { n: 4 }, 'a run of one is the message itself');
  });

  it('messages of separate turns are separate publishes', async () => {
    const seen: number[] = [];
    subscriber.subscribe('progress', (m: { n: number }) => seen.push(m.n));
    await subscriber.ready('progress');
    rawMessages.length = 0;
    await publisher.publish('progress', { n: 1 });
    await publisher.publish('progress', { n: 2 });
    for (let i = 0; i < 200 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(seen, [1, 2]);
    assert.equal(rawMessages.filter((m) => m.channel === 'progress').length, 2);
  });

  it('a publish that cannot reach Redis is dropped and reported at once, never rejected (the write it follows has committed) and never crashes the process', async () => {
    const drops: number[] = [];
    const lonely = await createRedisBus(REDIS_URL, prefix, (_err, n) => drops.push(n));
    await lonely.close();
    const unawaited = lonely.publish('progress', { n: 1 }); // fire and forget, as progress is published
    void unawaited;
    await lonely.publish('event', { n: 2 }); // resolves: events are stored, live fan-out is best effort (docs/reliability.md)
    await new Promise((r) => setTimeout(r, 20)); // an unhandled rejection would fail the test run here
    assert.deepEqual(drops, [1, 1]);
  });
});
