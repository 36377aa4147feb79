// One per API process: subscribes once to the event bus ('event': stored events
// in wire form) and, while at least one live client is connected here, to
// 'progress' (every solver iteration: the heaviest channel, not worth receiving
// and parsing when nobody watches, bench/README.md round six b); hands each message
// to the live subscribers of that message's tenant only. With REDIS_URL the bus is
// Redis pub/sub, so subscribers here see events raised by any API or worker process.
import type { ServiceCore } from '../services.js';
import type { Metrics } from '../metrics/registry.js';
import { EVENT_TOPICS, type EventTopic } from '../domain/eventLog.js';
import type { LiveEvent } from './filter.js';

export interface LiveSubscriber {
  tenantId: string;
  deliver(e: LiveEvent): void;
}

export interface HubStats {
  subscribers: number;
  tenants: number;
  delivered: number;
  bus: 'memory' | 'redis';
}

const TOPICS = new Set<string>(EVENT_TOPICS);

type Wire = Record<string, unknown>;
const idOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function asEvent(m: Wire | null): LiveEvent | undefined {
  if (
    !m ||
    typeof m !== 'object' ||
    typeof m.tenant_id !== 'string' ||
    typeof m.topic !== 'string' ||
    !TOPICS.has(m.topic) ||
    typeof m.kind !== 'string'
  )
    return undefined;
  return {
    id: typeof m.id === 'string' ? m.id : null,
    seq: typeof m.seq === 'number' ? m.seq : null,
    tenant_id: m.tenant_id,
    topic: m.topic as EventTopic,
    kind: m.kind,
    payload: m.payload && typeof m.payload === 'object' ? (m.payload as Wire) : {},
    network_id: idOrNull(m.network_id),
    agent_id: idOrNull(m.agent_id),
    severity: typeof m.severity === 'number' ? m.severity : null,
    timestamp: typeof m.timestamp === 'string' ? m.timestamp : new Date().toISOString(),
  };
}

/** Power-flow progress (not stored, id null) as a live event: topic powerflow, kind powerflow.progress. */
function asProgress(m: Wire | null): LiveEvent | undefined {
  if (!m || typeof m !== 'object' || typeof m.tenant_id !== 'string' || typeof m.task_id !== 'string') return undefined;
  return {
    id: null,
    seq: null,
    tenant_id: m.tenant_id,
    topic: 'powerflow',
    kind: m.kind === 'opf' ? 'opf.progress' : m.kind === 'state_estimation' ? 'state_estimation.progress' : 'powerflow.progress',
    payload: {
      task_id: m.task_id,
      network_id: m.network_id ?? null,
      iteration: m.iteration,
      max_iterations: m.max_iterations,
      mismatch: m.mismatch,
      ...(m.opf ? { opf: m.opf } : {}),
    },
    network_id: idOrNull(m.network_id),
    agent_id: null,
    severity: 0,
    timestamp: typeof m.timestamp === 'string' ? m.timestamp : new Date().toISOString(),
  };
}

export class RealtimeHub {
  private readonly byTenant = new Map<string, Set<LiveSubscriber>>();
  private unsub: (() => void)[] = [];
  private count = 0;
  private delivered = 0;

  private starting?: Promise<void>;

  constructor(private readonly s: Pick<ServiceCore, 'bus' | 'log'> & { metrics?: Pick<Metrics, 'publishLag'> }) {}

  /** Subscribes to the bus on first use (the first live door), once; a failed start is retried by the next caller. */
  started(): Promise<this> {
    if (!this.starting) {
      this.starting = this.start();
      this.starting.catch(() => {
        this.close();
        this.starting = undefined;
      });
    }
    return this.starting.then(() => this);
  }

  /** Live subscribers of this process, or undefined when no live door has started the hub. */
  statsIfStarted(): HubStats | undefined {
    return this.starting ? this.stats() : undefined;
  }

  private async start(): Promise<void> {
    const bus = this.s.bus;
    this.unsub.push(bus.subscribe<Wire | null>('event', (m) => this.dispatch(asEvent(m))));
    // Live doors subscribe before replaying history; that is gap-free only once
    // the bus delivers to this process.
    await bus.ready('event');
  }

  private progressOff?: () => void;

  /** Resolves once the progress of solves reaches this process's subscribers (a live door may wait for it before
   *  telling its client it is connected); at once while nobody is subscribed. */
  progressReady(): Promise<void> {
    return this.progressOff ? this.s.bus.ready('progress') : Promise.resolve();
  }

  private dispatch(e: LiveEvent | undefined): void {
    if (!e) return;
    const created = Date.parse(e.timestamp);
    if (Number.isFinite(created)) this.s.metrics?.publishLag.observe({ topic: e.topic }, Math.max(0, Date.now() - created) / 1000);
    const subs = this.byTenant.get(e.tenant_id);
    if (!subs) return;
    for (const sub of subs) {
      try {
        sub.deliver(e);
        this.delivered++;
      } catch (err) {
        this.s.log.warn({ err }, 'live subscriber failed to take an event');
      }
    }
  }

  add(sub: LiveSubscriber): () => void {
    let set = this.byTenant.get(sub.tenantId);
    if (!set) this.byTenant.set(sub.tenantId, (set = new Set()));
    set.add(sub);
    if (this.count++ === 0 && !this.progressOff) this.progressOff = this.s.bus.subscribe<Wire | null>('progress', (m) => this.dispatch(asProgress(m)));
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set!.delete(sub);
      if (--this.count === 0) this.stopProgress();
      if (set!.size === 0 && this.byTenant.get(sub.tenantId) === set) this.byTenant.delete(sub.tenantId);
    };
  }

  stats(): HubStats {
    return { subscribers: this.count, tenants: this.byTenant.size, delivered: this.delivered, bus: this.s.bus.kind };
  }

  /** Whether this process receives the progress of solves now (a live client is connected). */
  get receivesProgress(): boolean {
    return this.progressOff !== undefined;
  }

  private stopProgress(): void {
    this.progressOff?.();
    this.progressOff = undefined;
  }

  close(): void {
    this.starting = undefined;
    this.stopProgress();
    for (const u of this.unsub) u();
    this.unsub = [];
    this.byTenant.clear();
    this.count = 0;
  }
}
