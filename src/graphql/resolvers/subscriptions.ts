// Subscriptions of SPEC 6.2. Every stream is filtered to the caller's tenant.
// Replay: replay: true (or after: <event id>) first delivers the latest 100
// stored matching events, oldest first, then continues live; a client that
// reconnects re-subscribes with replay: true, or with after: the last eventId
// it saw to get only what it missed.
import { AppError } from '../../lib/errors.js';
import { EVENT_TOPICS, type EventTopic } from '../../domain/eventLog.js';
import { parseTopics } from '../../domain/eventHistory.js';
import { eventSeq } from '../../lib/ids.js';
import { allow, type GqlContext } from '../context.js';
import type { GqlEnum, Opt } from '../args.js';
import type { Severity } from '../../schemas/vocabulary.js';
import { eventStream, type ProgressMessage } from '../streams.js';
import { SEVERITIES, toAgentStatusEvent, toAlarm, toEvent, toNetworkEvent, toProgress, severityLevel, type AlarmLike, type LiveEvent } from './map.js';

/** The replay arguments every event subscription takes. */
interface ReplayArgs {
  replay?: Opt<boolean>;
  after?: unknown;
}

function checkAfter(after: unknown): string | undefined {
  if (after === undefined || after === null) return undefined;
  if (typeof after !== 'string' || eventSeq(after) === undefined)
    throw new AppError('INVALID_FIELD', `after must be an event id such as evt_0000000000000042, got ${JSON.stringify(after)}`, {
      field: 'after',
    });
  return after;
}

export const subscriptionResolvers = {
  Subscription: {
    networkChanged: {
      subscribe: async (_r: unknown, a: ReplayArgs & { id?: Opt<string> }, ctx: GqlContext) => {
        const caller = allow(ctx, 'read');
        const id: string | undefined = a.id ?? undefined;
        return eventStream(ctx.s, caller, {
          filter: (e) => e.topic === 'topology' && (!id || (e.network_id ?? e.payload.network_id) === id),
          replay: a.replay === true, after: checkAfter(a.after), history: { topic: 'topology', network_id: id },
        });
      },
      resolve: (e: LiveEvent) => toNetworkEvent(e),
    },
    agentStatusChanged: {
      subscribe: async (_r: unknown, a: ReplayArgs & { id?: Opt<string> }, ctx: GqlContext) => {
        const caller = allow(ctx, 'read');
        const id: string | undefined = a.id ?? undefined;
        return eventStream(ctx.s, caller, {
          filter: (e) => e.topic === 'agent' && typeof e.payload.new_status === 'string' && (!id || (e.agent_id ?? e.payload.agent_id) === id),
          replay: a.replay === true, after: checkAfter(a.after), history: { topic: 'agent', agent_id: id },
        });
      },
      resolve: (e: LiveEvent) => toAgentStatusEvent(e),
    },
    alarmStream: {
      subscribe: async (_r: unknown, a: ReplayArgs & { severity?: Opt<GqlEnum<Severity>> }, ctx: GqlContext) => {
        const caller = allow(ctx, 'read');
        const min = a.severity ? severityLevel(a.severity) : 0;
        return eventStream(ctx.s, caller, {
          filter: (e) => e.topic === 'alarm' && (min === 0 || (e.severity ?? 0) >= min),
          replay: a.replay === true, after: checkAfter(a.after), history: { topic: 'alarm', severity: min > 0 ? SEVERITIES[min].toLowerCase() : undefined },
        });
      },
      resolve: (e: LiveEvent) => {
        const p = e.payload as AlarmLike; // the alarm event of SPEC 6.1 (src/domain/alarms.ts alarmEvent)
        return toAlarm({ ...p, id: p.id ?? p.alarm_id, network_id: p.network_id ?? e.network_id, severity: p.severity ?? e.severity });
      },
    },
    eventStream: {
      subscribe: async (_r: unknown, a: ReplayArgs & { topic?: Opt<string> }, ctx: GqlContext) => {
        const caller = allow(ctx, 'read');
        const topics = parseTopics(a.topic ?? undefined);
        const audit = caller.permissions.has('audit');
        if (topics?.includes('audit') && !audit) {
          throw new AppError('FORBIDDEN', `role ${caller.role} lacks the "audit" permission the audit topic needs`, { permission: 'audit', role: caller.role });
        }
        const wanted = new Set<EventTopic>(topics ?? EVENT_TOPICS.filter((t) => t !== 'audit' || audit));
        return eventStream(ctx.s, caller, {
          filter: (e) => wanted.has(e.topic as EventTopic),
          replay: a.replay === true, after: checkAfter(a.after), history: { topic: topics ? topics.join(',') : undefined },
        });
      },
      resolve: (e: LiveEvent) => toEvent(e),
    },
    powerFlowProgress: {
      subscribe: async (_r: unknown, a: { taskId: string }, ctx: GqlContext) => {
        const caller = allow(ctx, 'read');
        const hub = ctx.s.progress;
        if (!hub.started) throw new AppError('SERVICE_UNAVAILABLE', 'power-flow progress is not available in this process');
        return hub.subscribe(caller, a.taskId);
      },
      resolve: (m: ProgressMessage) => toProgress(m),
    },
  },
};
