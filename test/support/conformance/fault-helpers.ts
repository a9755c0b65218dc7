/**
 * What the fault catalogue's entries are made of: the entry type and small builders for faults that rewrite a JSON
 * answer, a header, a webhook delivery (re-signed, so only the fault shows) or a WebSocket event.
 */
import { randomUUID } from 'node:crypto';
import { webhookSignature } from '../../../conformance/wire/webhook-signature.js';
import { type Fault, type ProxiedRequest, type ProxiedResponse, type RelayedDelivery, rewriteJson } from './fault-proxy.js';

export type FaultChannel = 'http' | 'ws' | 'webhook';

export interface CatalogueEntry {
  fault: Fault;
  channel: FaultChannel;
  /** The profile the suite runs under for this entry (default A). */
  profile?: 'B';
  /** Check ids (globs) of the groups that judge this fault. */
  area: string[];
  /** A benign variant: a correct client tolerates it, so every check must still pass. */
  benign?: true;
}

export const API = /^\/api\/v1\//;

export function isPath(req: ProxiedRequest, method: string, path: RegExp): boolean {
  return req.method === method && path.test(req.path.split('?')[0]!);
}

export function json(name: string, when: (req: ProxiedRequest, res: ProxiedResponse) => boolean, edit: (body: any) => void): Fault {
  return { name, response: (req, res) => void (when(req, res) && rewriteJson(res, edit)) };
}

export function header(
  name: string,
  when: (req: ProxiedRequest, res: ProxiedResponse) => boolean,
  edit: (res: ProxiedResponse) => void,
): Fault {
  return { name, response: (req, res) => void (when(req, res) && edit(res)) };
}

export const onQuotes = (req: ProxiedRequest) => isPath(req, 'POST', /^\/api\/v1\/quotes\/?$/);
export const onQuoteDetail = (req: ProxiedRequest) => isPath(req, 'GET', /^\/api\/v1\/quotes\/qt_[^/]+$/);
export const onOrderCreate = (req: ProxiedRequest) => isPath(req, 'POST', /^\/api\/v1\/orders\/?$/);
export const onOrderRead = (req: ProxiedRequest) => isPath(req, 'GET', /^\/api\/v1\/orders\/[^/]+$/);
export const onHealth = (req: ProxiedRequest) => isPath(req, 'GET', /^\/api\/v1\/health$/);
export const isError = (_req: ProxiedRequest, res: ProxiedResponse) => res.status >= 400 && res.status < 500;

/** Re-signs a delivery as the spec says (`<timestamp>.<raw body>`) after a fault changed it, so only the fault shows. */
export function resign(d: RelayedDelivery): void {
  const timestamp = d.headers['x-service-timestamp'];
  if (d.secret !== undefined && typeof timestamp === 'string')
    d.headers['x-service-signature'] = webhookSignature(d.secret, timestamp, d.body);
}

export function deliveryBody(d: RelayedDelivery, edit: (body: any) => void): void {
  const body = JSON.parse(d.body.toString('utf8'));
  edit(body);
  d.body = Buffer.from(JSON.stringify(body));
  resign(d);
}

export function isEvent(message: Record<string, unknown>): boolean {
  return typeof message.id === 'string' && message.id.startsWith('evt_');
}

/** A random event id of the spec's shape. */
export function eventId(): string {
  return `evt_${randomUUID().replaceAll('-', '')}`;
}

/** A random 32-byte hash: a transaction that exists on no chain. */
export function randomHash(): string {
  return `0x${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '')}`;
}
