import { z } from 'zod';

/**
 * The wire dialogue of `/api/v1/ws`, the taker stream. Client messages are validated here; server messages are
 * typed so the session cannot send a shape the docs do not describe.
 */

const TopicList = z.array(z.string().min(1).max(300)).max(100);

export const AuthMessage = z.object({ type: z.literal('auth'), token: z.string().min(1).max(4096) });

export const SubscribeMessage = z.object({
  type: z.literal('subscribe'),
  /** Reference A topics. */
  topics: TopicList.optional(),
  /** Reference B channel patterns (`rfq.*`, `settlement.complete`…). */
  channels: TopicList.optional(),
  /** Reference B: optional corridor filter for channel events. */
  corridors: z.array(z.string().min(1).max(200)).max(100).optional(),
  /** Id of the last event the client saw (`evt_…`): the events after it, among the last 100, are replayed first. */
  cursor: z
    .string()
    .regex(/^evt_[0-9a-z]{1,64}$/, 'must be an event id (evt_…)')
    .optional(),
});

export const UnsubscribeMessage = z.object({
  type: z.literal('unsubscribe'),
  topics: TopicList.optional(),
  channels: TopicList.optional(),
});

export const PongMessage = z.object({ type: z.literal('pong') });
export const PingMessage = z.object({ type: z.literal('ping') });

export const ClientMessage = z.discriminatedUnion('type', [AuthMessage, SubscribeMessage, UnsubscribeMessage, PongMessage, PingMessage]);
export type ClientMessage = z.output<typeof ClientMessage>;

export interface WireError {
  type: string;
  code: string;
  message: string;
  param?: string;
  doc_url?: string;
}

export type ServerMessage =
  | { type: 'auth.ok'; environment: string; workspaceId: string }
  | { type: 'subscribe.ok'; topics?: string[]; channels?: string[]; corridors?: string[] }
  | { type: 'unsubscribe.ok'; topics?: string[]; channels?: string[] }
  | { type: 'replay.done'; replayed: number; truncated: boolean; cursor: string }
  | { type: 'events.dropped'; count: number; firstEventId: string; lastEventId: string }
  | { type: 'ping' }
  | { type: 'pong' }
  | { type: 'error'; error: WireError }
  | ({ type: 'price'; topic: string } & Record<string, unknown>);

/** Close codes of the taker stream (4000–4999 are application codes; each mirrors an HTTP status). */
export const CloseCode = {
  /** The server is stopping. */
  goingAway: 1001,
  /** Authentication failed or was not attempted in time. */
  unauthorized: 4401,
  /** No pong before the next ping was due. */
  pongTimeout: 4408,
  /** The credential already holds the maximum number of connections. */
  tooManyConnections: 4429,
} as const;
